package client_test

import (
	"context"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/transports/inprocess"
	"github.com/snodo-go/snodo/transports/stdio"
)

// transport makes a fresh transport to the test server for one test.
type transport struct {
	name string
	make func(t testing.TB) client.Transport
	// inProcess servers report cancellations on the cancelled channel.
	inProcess bool
}

// ourTransports are the transports to our own server that exist.
func ourTransports() []transport {
	return []transport{
		{name: "direct", make: directTransport, inProcess: true},
		{name: "stream", make: streamTransport, inProcess: true},
		{name: "command", make: commandTransport},
		{name: "http", make: httpTransport, inProcess: true},
		{name: "http-listener", make: listenerTransport, inProcess: true},
	}
}

func mustRuntime(t testing.TB) *dispatch.Runtime {
	t.Helper()
	rt, err := newRuntime()
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func directTransport(t testing.TB) client.Transport {
	return inprocess.New(mustRuntime(t))
}

// streamTransport serves the runtime with transports/stdio over in-memory
// pipes in this process.
func streamTransport(t testing.TB) client.Transport {
	rt := mustRuntime(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := stdio.Serve(context.Background(), rt, stdio.WithInput(inR), stdio.WithOutput(outW))
		outW.Close()
		done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("stdio.Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("stdio.Serve did not return")
		}
		outR.Close()
	})
	return &client.StreamTransport{Reader: outR, Writer: inW}
}

// commandTransport runs this test binary as a stdio server process.
func commandTransport(t testing.TB) client.Transport {
	return serverCommand(t, "stdio")
}

func serverCommand(t testing.TB, mode string) *client.CommandTransport {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tr := &client.CommandTransport{Path: exe}
	tr.Env = append(os.Environ(), serverEnv+"="+mode)
	return tr
}

// stubborn is a server process that ignores SIGTERM and the end of its
// input; it prints its pid so a test can check that it is gone.
func stubborn() {
	signal.Ignore(syscall.SIGTERM)
	os.Stdout.WriteString(`{"pid":` + strconv.Itoa(os.Getpid()) + "}\n")
	for {
		time.Sleep(time.Hour)
	}
}

// TestStreamTransportNeedsBothEnds: a StreamTransport without its Reader
// or Writer is an error at connect, not a panic later.
func TestStreamTransportNeedsBothEnds(t *testing.T) {
	r, w := io.Pipe()
	defer r.Close()
	for name, tr := range map[string]*client.StreamTransport{
		"no reader": {Writer: w},
		"no writer": {Reader: r},
	} {
		if c, err := client.New(context.Background(), tr); err == nil {
			_ = c.Close()
			t.Errorf("%s: connected", name)
		}
	}
}
