#!/usr/bin/perl
# A legal random bot for every game of circus-referee, over stdio, in Perl with core modules only.
# Written by an outsider from the docs alone (README.md, docs/writing-a-bot.md, docs/protocol.md,
# docs/rules/, proto/circus/v1/*.proto), without reading the project's code or example bots:
# tests/test_outsider_bot.py keeps the docs honest by running it sandboxed.
use strict;
use warnings;
use JSON::PP;

$| = 1;                                   # flush every reply line at once (a buffered reply is a timeout)
$SIG{TERM} = sub { exit 0 };              # PID 1 in the sandbox ignores signals it has no handler for
my $json = JSON::PP->new->utf8->canonical;
srand();

while (my $line = <STDIN>) {              # one request per line; end of file means stop
    my $message = eval { $json->decode($line) };
    if (!defined $message) { print STDERR "not JSON, skipped: $@"; next; }
    my $reply;
    if (exists $message->{hello}) {
        $reply = { hello => { name => 'perl-random', version => '0.1', protocol_version => '1.1.0',
                              games => [ map { { game => $_ } } qw(flea-circus flohcati animal-circus) ] } };
    } elsif (exists $message->{decide}) {
        my $request = $message->{decide};
        my $count = scalar @{ $request->{legal_actions} };
        # decision_id is a uint64, sent as a string: echo it unchanged; the index must be a number.
        $reply = { decide => { decision_id => $request->{decision_id},
                               action_index => 0 + int(rand($count)) } };
    } elsif (exists $message->{start_game}) {
        $reply = { start_game => {} };
    } elsif (exists $message->{end_game}) {
        my $end = $message->{end_game};
        my $seat = $end->{seat} // 0;     # a field at its default (seat 0) is left out
        print STDERR "$end->{game_id}: rank ", ($end->{ranks}[$seat] // '?'), "\n";
        $reply = { end_game => {} };
    } else {
        print STDERR "unknown request, ignored: $line";
        next;
    }
    $reply->{request_id} = $message->{request_id};
    print $json->encode($reply), "\n";
}
