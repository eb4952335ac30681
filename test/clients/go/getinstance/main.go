// Command getinstance calls portcullis.instance.v2.InstanceService/GetInstance over gRPC with a
// personal access token and prints the response as JSON. It is the Go client of the "Go clients"
// recipe in docs/api.md and is built and run by test/clients/go/getinstance.test.ts.
//
//	PORTCULLIS_PAT=$(cat .portcullis/admin.pat) getinstance -addr localhost:8080
//
// Exit status: 0 with the JSON on stdout; 1 when the call fails (the gRPC code, message and the
// google.rpc.ErrorInfo reason on stderr); 2 for a usage error.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	instancev2 "portcullis.dev/gen/go/portcullis/instance/v2"
)

func main() {
	addr := flag.String("addr", "localhost:8080", "host:port of the Portcullis server (plaintext gRPC, HTTP/2 prior knowledge)")
	patFile := flag.String("pat-file", "", "file holding the personal access token (default: $PORTCULLIS_PAT)")
	timeout := flag.Duration("timeout", 10*time.Second, "deadline of the call")
	method := flag.String("method", "", "call this full method name (/package.Service/Method) with an empty message instead")
	flag.Parse()

	// The token comes from a file or the environment, never from the command line, where any
	// local user could read it in the process list.
	pat := os.Getenv("PORTCULLIS_PAT")
	if *patFile != "" {
		b, err := os.ReadFile(*patFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "getinstance:", err)
			os.Exit(2)
		}
		pat = string(b)
	}
	pat = strings.TrimSpace(pat)
	if pat == "" {
		fmt.Fprintln(os.Stderr, "getinstance: no token: set PORTCULLIS_PAT or -pat-file")
		os.Exit(2)
	}

	// Linking grpc-go's own reflection service next to the Portcullis stubs is the point of this
	// line: the stubs must not register the reflection protocol's message names a second time
	// (protobuf-go panics at start on a duplicate), so buf.gen.go.yaml leaves those protos out.
	reflection.Register(grpc.NewServer())

	// grpc.WithInsecure is the plaintext option of the grpc-go Debian bookworm ships (1.33);
	// newer releases spell it insecure.NewCredentials().
	conn, err := grpc.Dial(*addr, grpc.WithInsecure())
	if err != nil {
		fmt.Fprintln(os.Stderr, "getinstance:", err)
		os.Exit(1)
	}
	defer conn.Close()

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+pat)

	if *method != "" {
		// A method the server may not have: it must answer with a status (Unimplemented), not
		// close the stream without one.
		err := conn.Invoke(ctx, *method, &instancev2.GetInstanceRequest{}, &instancev2.GetInstanceResponse{})
		st := status.Convert(err)
		fmt.Fprintf(os.Stderr, "getinstance: %s: code=%s message=%s\n", *method, st.Code(), st.Message())
		if err != nil {
			os.Exit(1)
		}
		return
	}

	res, err := instancev2.NewInstanceServiceClient(conn).GetInstance(ctx, &instancev2.GetInstanceRequest{})
	if err != nil {
		st := status.Convert(err)
		// The server attaches google.rpc.ErrorInfo; its reason is the stable key to branch on.
		// Decoding it through genproto's errdetails also proves that package links next to the
		// stubs (buf.gen.go.yaml leaves this repository's copy of google.rpc out).
		reason := ""
		for _, d := range st.Details() {
			if info, ok := d.(*errdetails.ErrorInfo); ok {
				reason = info.GetReason()
			}
		}
		fmt.Fprintf(os.Stderr, "getinstance: GetInstance failed: code=%s reason=%s message=%s\n", st.Code(), reason, st.Message())
		os.Exit(1)
	}
	out, err := protojson.Marshal(res)
	if err != nil {
		fmt.Fprintln(os.Stderr, "getinstance:", err)
		os.Exit(1)
	}
	fmt.Println(string(out))
}
