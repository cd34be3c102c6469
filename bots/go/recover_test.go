package main

// `make -C bots/go test` runs these (tests/test_go_bot.py does).

import (
	"context"
	"testing"

	pb "circusbot/circusv1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestAPanicInAHandlerBecomesAnInternalStatus(t *testing.T) {
	info := &grpc.UnaryServerInfo{FullMethod: "/circus.v1.Bot/Decide"}
	panicking := func(context.Context, interface{}) (interface{}, error) { panic("a bug in a rule") }
	reply, err := recoverPanics(context.Background(), &pb.DecisionRequest{}, info, panicking)
	if reply != nil || status.Code(err) != codes.Internal {
		t.Fatalf("got %v, %v; want no reply and INTERNAL", reply, err)
	}
}

func TestAHandlerThatReturnsIsPassedThrough(t *testing.T) {
	info := &grpc.UnaryServerInfo{FullMethod: "/circus.v1.Bot/Decide"}
	answer := &pb.Decision{DecisionId: 7}
	fine := func(context.Context, interface{}) (interface{}, error) { return answer, nil }
	reply, err := recoverPanics(context.Background(), &pb.DecisionRequest{}, info, fine)
	if reply != answer || err != nil {
		t.Fatalf("got %v, %v; want the handler's reply", reply, err)
	}
}

func TestListenTakesAUnixAddress(t *testing.T) {
	path := t.TempDir() + "/bot.sock"
	listener, err := listen("unix:" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	if listener.Addr().Network() != "unix" || listener.Addr().String() != path {
		t.Fatalf("listening on %s %s", listener.Addr().Network(), listener.Addr())
	}
}
