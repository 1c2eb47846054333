package actors

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/tree"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The actor library logs through the application's handler, its chatter at
// Debug; at Info nothing of it appears.
func TestActorLibraryLogsGoToTheApplicationLogger(t *testing.T) {
	for _, tc := range []struct {
		level slog.Level
		want  bool
	}{{slog.LevelDebug, true}, {slog.LevelInfo, false}} {
		buf := &syncBuffer{}
		sys, err := newSystem(tree.SystemConfig{Logger: slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: tc.level}))})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := sys.Close(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		got := buf.String()
		if has := strings.Contains(got, "actor system started") && strings.Contains(got, "level=DEBUG") && strings.Contains(got, "component=protoactor"); has != tc.want {
			t.Fatalf("at %v the log is %q", tc.level, got)
		}
	}
}
