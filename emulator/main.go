// Command emulator runs Google's in-memory Bigtable emulator (bttest) on 127.0.0.1 for
// keyspread's tests and benchmarks. --latency adds a sleep to every RPC so loopback reads
// cost what a real Bigtable round trip does.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"cloud.google.com/go/bigtable/bttest"
	"google.golang.org/grpc"
)

func main() {
	port := flag.Int("port", 8086, "TCP port on 127.0.0.1")
	latency := flag.Duration("latency", 0, "sleep added to every RPC, e.g. 5ms")
	owner := flag.Int("owner", 0, "exit once this process id is gone, so killed test runs leave nothing behind (0: never)")
	flag.Parse()

	unary := func(ctx context.Context, req interface{}, _ *grpc.UnaryServerInfo, next grpc.UnaryHandler) (interface{}, error) {
		time.Sleep(*latency)
		return next(ctx, req)
	}
	stream := func(srv interface{}, ss grpc.ServerStream, _ *grpc.StreamServerInfo, next grpc.StreamHandler) error {
		time.Sleep(*latency)
		return next(srv, ss)
	}
	server, err := bttest.NewServer(fmt.Sprintf("127.0.0.1:%d", *port),
		grpc.UnaryInterceptor(unary), grpc.StreamInterceptor(stream), grpc.MaxRecvMsgSize(256<<20))
	if err != nil {
		log.Fatalf("emulator: %v", err)
	}
	log.Printf("emulator: listening on %s (latency %v)", server.Addr, *latency)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	if *owner > 0 {
		go func() {
			for syscall.Kill(*owner, 0) != syscall.ESRCH {
				time.Sleep(time.Second)
			}
			stop <- syscall.SIGTERM
		}()
	}
	<-stop
	server.Close()
}
