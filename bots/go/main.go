// go-rules: an example circus-referee bot in Go, built offline from Debian's
// packages (see the Makefile). This file serves the protocol; rules.go chooses.
//
// The bot listens on --address ADDR (or --port PORT), else on the
// CIRCUS_BOT_ADDRESS (or CIRCUS_BOT_PORT) the referee sets; the command line
// wins over the environment, and an address over a port. On SIGTERM (how the
// referee stops a bot) or SIGINT it stops gracefully, within a deadline.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	pb "circusbot/circusv1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const (
	botName         = "go-rules"
	botVersion      = "0.1"
	protocolVersion = "1.0.0"
	// What the referee may send at most by default (limits.message_bytes).
	maxMessageBytes = 4 << 20
	// The referee kills the process group 1 s after SIGTERM: calls in flight
	// get this long to finish, then the server stops hard.
	stopDeadline = 300 * time.Millisecond
)

// bot implements circus.v1.Bot. Embedding UnimplementedBotServer is what the
// generated code asks for: a call added to the service later answers
// UNIMPLEMENTED instead of breaking the build.
type bot struct {
	pb.UnimplementedBotServer
	mu        sync.Mutex
	decisions map[string]int // decisions answered so far, by game_id, for the EndGame line
}

func (b *bot) Hello(_ context.Context, request *pb.HelloRequest) (*pb.HelloResponse, error) {
	if major(request.ProtocolVersion) != major(protocolVersion) {
		log.Printf("the referee speaks protocol %s, this bot %s", request.ProtocolVersion, protocolVersion)
	}
	reply := &pb.HelloResponse{Name: botName, Version: botVersion, ProtocolVersion: protocolVersion}
	for _, game := range gameNames() {
		reply.Games = append(reply.Games, &pb.GameSupport{Game: game}) // no variants: every variant
	}
	return reply, nil
}

func (b *bot) StartGame(_ context.Context, request *pb.StartGameRequest) (*pb.StartGameResponse, error) {
	b.mu.Lock()
	b.decisions[request.GameId] = 0
	b.mu.Unlock()
	log.Printf("start %s: %s (%s), seat %d of %d", request.GameId, request.Game, request.Variant,
		request.Seat, request.NumPlayers)
	return &pb.StartGameResponse{}, nil
}

func (b *bot) Decide(_ context.Context, request *pb.DecisionRequest) (*pb.Decision, error) {
	b.mu.Lock()
	if _, known := b.decisions[request.GameId]; known {
		b.decisions[request.GameId]++
	}
	b.mu.Unlock()
	// Echo the decision_id, or the answer is stale (an illegal fault).
	return &pb.Decision{DecisionId: request.DecisionId, ActionIndex: uint32(choose(request))}, nil
}

func (b *bot) EndGame(_ context.Context, request *pb.EndGameRequest) (*pb.EndGameResponse, error) {
	b.mu.Lock()
	decisions := b.decisions[request.GameId]
	delete(b.decisions, request.GameId)
	b.mu.Unlock()
	seat := int(request.Seat)
	var score int32
	var rank uint32
	if seat < len(request.Scores) && seat < len(request.Ranks) {
		score, rank = request.Scores[seat], request.Ranks[seat]
	}
	log.Printf("end %s (%s, %s): seat %d scored %d, rank %d of %d after %d decisions",
		request.GameId, request.Status, request.Reason, seat, score, rank, len(request.Ranks), decisions)
	return &pb.EndGameResponse{}, nil
}

func major(version string) string {
	return strings.SplitN(version, ".", 2)[0]
}

// recoverPanics turns a panic in a handler into an INTERNAL status (an
// `error` fault of one decision). Without it, grpc-go lets the panic end the
// process: a `crash`, which forfeits every game in flight with this bot.
func recoverPanics(ctx context.Context, request interface{}, info *grpc.UnaryServerInfo,
	handler grpc.UnaryHandler) (reply interface{}, err error) {
	defer func() {
		if cause := recover(); cause != nil {
			log.Printf("panic in %s: %v\n%s", info.FullMethod, cause, debug.Stack())
			reply, err = nil, status.Errorf(codes.Internal, "panic: %v", cause)
		}
	}()
	return handler(ctx, request)
}

// listenAddress picks the address from the flags, then the environment.
func listenAddress() (string, error) {
	address := flag.String("address", "", "listen on ADDR: unix:/path or host:port")
	port := flag.Int("port", 0, "listen on 127.0.0.1:PORT")
	flag.Parse()
	switch {
	case *address != "":
		return *address, nil
	case *port != 0:
		return fmt.Sprintf("127.0.0.1:%d", *port), nil
	case os.Getenv("CIRCUS_BOT_ADDRESS") != "":
		return os.Getenv("CIRCUS_BOT_ADDRESS"), nil
	case os.Getenv("CIRCUS_BOT_PORT") != "":
		return "127.0.0.1:" + os.Getenv("CIRCUS_BOT_PORT"), nil
	}
	return "", fmt.Errorf("no address: give --address ADDR or --port PORT, or set CIRCUS_BOT_ADDRESS")
}

// listen opens the address. grpc-go takes no `unix:` URI as a listening
// address: the socket is opened here with net.Listen("unix", path).
func listen(address string) (net.Listener, error) {
	if path := strings.TrimPrefix(address, "unix:"); path != address {
		return net.Listen("unix", path)
	}
	return net.Listen("tcp", address)
}

func main() {
	log.SetFlags(0)
	log.SetPrefix(botName + ": ")
	address, err := listenAddress()
	if err != nil {
		log.Fatal(err)
	}
	listener, err := listen(address)
	if err != nil {
		log.Fatalf("cannot listen on %s: %v", address, err)
	}
	server := grpc.NewServer(grpc.UnaryInterceptor(recoverPanics),
		grpc.MaxRecvMsgSize(maxMessageBytes), grpc.MaxSendMsgSize(maxMessageBytes))
	pb.RegisterBotServer(server, &bot{decisions: map[string]int{}})

	stopped := make(chan struct{})
	go stopOnSignal(server, stopped)
	log.Printf("listening on %s", address)
	if err := server.Serve(listener); err != nil {
		log.Fatalf("serving on %s: %v", address, err)
	}
	<-stopped // Serve returns as the stop begins: let the calls in flight finish
}

// stopOnSignal waits for SIGTERM or SIGINT, then stops the server: gracefully
// (calls in flight finish) within stopDeadline, then hard. It closes stopped.
func stopOnSignal(server *grpc.Server, stopped chan<- struct{}) {
	defer close(stopped)
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	name := "SIGTERM"
	if <-signals == syscall.SIGINT {
		name = "SIGINT"
	}
	log.Printf("%s: shutting down", name)
	graceful := make(chan struct{})
	go func() { server.GracefulStop(); close(graceful) }()
	select {
	case <-graceful:
	case <-time.After(stopDeadline):
		server.Stop() // cancels the calls still in flight
	}
}
