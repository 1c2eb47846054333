package client_test

import (
	"context"
	"testing"

	"github.com/snodo-go/snodo/client"
)

// BenchmarkCallTool measures one echo call over each transport to our
// server, negotiation excluded.
func BenchmarkCallTool(b *testing.B) {
	for _, tr := range ourTransports() {
		b.Run(tr.name, func(b *testing.B) {
			ctx := context.Background()
			c, err := client.New(ctx, tr.make(b))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			args := map[string]any{"text": "hello"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.CallTool(ctx, "echo", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
