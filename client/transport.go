package client

// The Transport interface that every client transport implements.

import (
	"context"

	"github.com/snodo-go/snodo/internal/clientconn"
)

// Transport connects a Client to one server. The package provides
// [Command] and [Stream] (newline-delimited JSON over a byte stream) and
// [HTTP] (Streamable HTTP); package transports/inprocess runs a server Runtime in
// the same process. A Transport may be connected more than once: version
// negotiation reconnects when a server ends the connection after refusing
// the server/discover probe.
type Transport interface {
	// Connect opens a connection. The connection hands peer.Inbound every
	// message the server sends outside an exchange.
	Connect(ctx context.Context, peer clientconn.Peer) (clientconn.Conn, error)
}
