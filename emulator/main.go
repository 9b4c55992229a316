// Command emulator runs Google's in-memory Bigtable emulator (bttest) on 127.0.0.1 for
// keyspread's tests and benchmarks. --latency adds a sleep to every RPC so loopback reads
// cost what a real Bigtable round trip does. --record appends what the emulator itself
// ignores to a JSON-lines file, so tests can check what was asked: every CreateTable request
// (initial splits, column families and their GC rules) and the table, app profile and routing
// header of every data request.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path"
	"sync"
	"syscall"
	"time"

	"cloud.google.com/go/bigtable/bttest"
	"github.com/golang/protobuf/jsonpb"
	"github.com/golang/protobuf/proto"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// recorder appends one JSON object per line; safe for concurrent RPCs.
type recorder struct {
	mu   sync.Mutex
	file *os.File
}

// routed is what every Bigtable data request carries.
type routed interface {
	GetTableName() string
	GetAppProfileId() string
}

func (r *recorder) record(ctx context.Context, method string, req interface{}) {
	if r == nil {
		return
	}
	entry := map[string]interface{}{"method": method}
	switch m := req.(type) {
	case routed:
		entry["table"] = m.GetTableName()
		entry["appProfileId"] = m.GetAppProfileId()
		// The routing header the real service routes a data call by (the emulator ignores it).
		if md, ok := metadata.FromIncomingContext(ctx); ok {
			entry["requestParams"] = md.Get("x-goog-request-params")
		}
	case proto.Message:
		if method != "CreateTable" {
			return
		}
		text, err := (&jsonpb.Marshaler{}).MarshalToString(m)
		if err != nil {
			log.Printf("emulator: cannot record %s: %v", method, err)
			return
		}
		entry["request"] = json.RawMessage(text)
	default:
		return
	}
	line, err := json.Marshal(entry)
	if err != nil {
		log.Printf("emulator: cannot record %s: %v", method, err)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.file.Write(append(line, '\n')); err != nil {
		log.Printf("emulator: cannot record %s: %v", method, err)
	}
}

// recordingStream records a streaming RPC's request as the handler receives it.
type recordingStream struct {
	grpc.ServerStream
	method   string
	recorder *recorder
}

func (s *recordingStream) RecvMsg(m interface{}) error {
	err := s.ServerStream.RecvMsg(m)
	if err == nil {
		s.recorder.record(s.Context(), s.method, m)
	}
	return err
}

func main() {
	port := flag.Int("port", 8086, "TCP port on 127.0.0.1")
	latency := flag.Duration("latency", 0, "sleep added to every RPC, e.g. 5ms")
	owner := flag.Int("owner", 0, "exit once this process id is gone, so killed test runs leave nothing behind (0: never)")
	recordFile := flag.String("record", "", "append CreateTable requests and each data request's table and app profile to this JSON-lines file")
	flag.Parse()

	var rec *recorder
	if *recordFile != "" {
		file, err := os.OpenFile(*recordFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			log.Fatalf("emulator: %v", err)
		}
		defer file.Close()
		rec = &recorder{file: file}
	}

	unary := func(ctx context.Context, req interface{}, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (interface{}, error) {
		time.Sleep(*latency)
		rec.record(ctx, path.Base(info.FullMethod), req)
		return next(ctx, req)
	}
	stream := func(srv interface{}, ss grpc.ServerStream, info *grpc.StreamServerInfo, next grpc.StreamHandler) error {
		time.Sleep(*latency)
		if rec != nil {
			ss = &recordingStream{ServerStream: ss, method: path.Base(info.FullMethod), recorder: rec}
		}
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
