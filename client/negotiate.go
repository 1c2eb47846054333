package client

// Choosing the protocol revision: server/discover first, then initialize.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/snodo-go/snodo/internal/clientconn"
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/internal/rpcwire"

	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// connect opens the connection and negotiates the revision:
//
//  1. When the client offers a stateless revision, it probes
//     server/discover with the newest one. A result names the server's
//     revisions; a -32022 error names them in data.supported. The newest
//     revision both sides speak wins: a stateless one is used at once, an
//     initialize-era one through initialize.
//  2. Any other answer (another JSON-RPC error, an HTTP 4xx without one,
//     silence past the probe timeout) marks a server of the initialize
//     era: the client sends initialize with its newest initialize-era
//     revision, then notifications/initialized. A server that ended the
//     connection on the probe is connected to again first.
func (c *Client) connect(ctx context.Context) error {
	conn, err := c.transport.Connect(ctx, c.peer())
	if err != nil {
		return fmt.Errorf("client: connecting: %w", err)
	}
	c.setConn(conn)
	if c.cacheServer == "" {
		if c.cacheServer = conn.CacheKey(); c.cacheServer == "" {
			c.cacheServer = fmt.Sprintf("client#%d", clientSeq.Add(1))
		}
	}
	legacy := c.legacyVersions()
	if stateless(c.cfg.versions[0]) {
		version := c.cfg.versions[0]
		for attempt := 0; attempt < 2; attempt++ {
			res, perr := c.probe(ctx, version)
			if perr == nil {
				chosen, ok := c.choose(res.SupportedVersions)
				switch {
				case !ok:
					return c.fail(versionError(c.cfg.versions, res.SupportedVersions))
				case chosen == version:
					c.established(version, res)
					return nil
				case stateless(chosen):
					version = chosen
					continue
				default:
					return c.initialize(ctx, chosen)
				}
			}
			if ctx.Err() != nil {
				return c.fail(fmt.Errorf("client: negotiating: %w", context.Cause(ctx)))
			}
			var je *jsonrpc.Error
			if errors.As(perr, &je) && je.Code == mcp.CodeUnsupportedProtocolVersion {
				supported := supportedFromError(je)
				chosen, ok := c.choose(supported)
				switch {
				case !ok && len(supported) > 0:
					return c.fail(versionError(c.cfg.versions, supported))
				case ok && stateless(chosen) && chosen != version:
					version = chosen
					continue
				case ok && !stateless(chosen):
					return c.initialize(ctx, chosen)
				}
			}
			var he *HTTPError
			if errors.As(perr, &he) && (he.StatusCode >= 500 || he.StatusCode == http.StatusUnauthorized || he.StatusCode == http.StatusForbidden) || errors.Is(perr, ErrUnauthorized) {
				return c.fail(fmt.Errorf("client: server/discover: %w", perr))
			}
			if len(legacy) == 0 {
				return c.fail(fmt.Errorf("client: server/discover: %w", perr))
			}
			if errors.Is(perr, ErrClosed) {
				// The server hung up on the probe: connect again.
				conn.Close()
				if conn, err = c.transport.Connect(ctx, c.peer()); err != nil {
					return fmt.Errorf("client: connecting again: %w", err)
				}
				c.setConn(conn)
			}
			if err := c.initialize(ctx, legacy[0]); err != nil {
				return fmt.Errorf("%w (after server/discover failed: %v)", err, perr)
			}
			return nil
		}
		return c.fail(versionError(c.cfg.versions, nil))
	}
	return c.initialize(ctx, legacy[0])
}

func (c *Client) setConn(conn clientconn.Conn) {
	c.mu.Lock()
	c.conn = conn
	c.mu.Unlock()
}

// fail closes the connection of a failed negotiation.
func (c *Client) fail(err error) error {
	c.mu.Lock()
	conn := c.conn
	c.conn = nil
	if c.retrying {
		// A reconnection failed: the Client stays open to try again.
		c.mu.Unlock()
		if conn != nil {
			conn.Close()
		}
		return err
	}
	c.closed = true
	c.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
	c.stopBg()
	c.wg.Wait()
	return err
}

func (c *Client) legacyVersions() []string {
	var out []string
	for _, v := range c.cfg.versions {
		if !stateless(v) {
			out = append(out, v)
		}
	}
	return out
}

// choose returns the newest offered revision the server supports.
func (c *Client) choose(supported []string) (string, bool) {
	for _, v := range c.cfg.versions {
		if slices.Contains(supported, v) {
			return v, true
		}
	}
	return "", false
}

func supportedFromError(e *jsonrpc.Error) []string {
	data, ok := e.Data.(map[string]any)
	if !ok {
		return nil
	}
	list, _ := data["supported"].([]any)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func (c *Client) probe(ctx context.Context, version string) (*mcp.DiscoverResult, error) {
	pctx, cancel := context.WithTimeout(ctx, c.cfg.probeTimeout)
	defer cancel()
	raw, err := c.roundTrip(pctx, &request{method: "server/discover", version: version, noTimeout: true})
	if err != nil {
		return nil, err
	}
	var res mcp.DiscoverResult
	if err := decodeResult("server/discover", raw, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// established records a stateless connection.
func (c *Client) established(version string, res *mcp.DiscoverResult) {
	info, _ := serverInfoOf(res.Meta)
	c.mu.Lock()
	c.version = version
	c.server = ServerInfo{
		ProtocolVersion: version, SupportedVersions: res.SupportedVersions,
		Implementation: info, Capabilities: res.Capabilities, Instructions: res.Instructions,
	}
	c.mu.Unlock()
}

// initialize performs the initialize-era handshake at version.
func (c *Client) initialize(ctx context.Context, version string) error {
	if err := c.handshake(ctx, version); err != nil {
		return c.fail(err)
	}
	return nil
}

// renewSession performs the handshake again after the server ended the
// HTTP session, unless another call renewed it since gen was read.
func (c *Client) renewSession(ctx context.Context, gen int64) error {
	c.renewMu.Lock()
	defer c.renewMu.Unlock()
	if c.sessionGen.Load() != gen {
		return nil
	}
	version := c.negotiated()
	if err := c.handshake(ctx, version); err != nil {
		return err
	}
	if v := c.negotiated(); v != version {
		return fmt.Errorf("client: the renewed session speaks %s, not %s", v, version)
	}
	c.sessionGen.Add(1)
	return nil
}

// handshake sends initialize and notifications/initialized.
func (c *Client) handshake(ctx context.Context, version string) error {
	params := map[string]any{
		"protocolVersion": version,
		"capabilities":    c.capabilities(),
		"clientInfo":      c.cfg.info,
	}
	raw, err := c.roundTrip(ctx, &request{method: "initialize", params: params, noVersion: true})
	if err != nil {
		return err
	}
	var res struct {
		ProtocolVersion string                 `json:"protocolVersion"`
		Capabilities    mcp.ServerCapabilities `json:"capabilities"`
		ServerInfo      mcp.Implementation     `json:"serverInfo"`
		Instructions    string                 `json:"instructions"`
	}
	if err := decodeResult("initialize", raw, &res); err != nil {
		return err
	}
	if !slices.Contains(c.cfg.versions, res.ProtocolVersion) || stateless(res.ProtocolVersion) {
		return versionError(c.cfg.versions, []string{res.ProtocolVersion})
	}
	c.mu.Lock()
	c.version = res.ProtocolVersion
	c.server = ServerInfo{
		ProtocolVersion: res.ProtocolVersion, SupportedVersions: []string{res.ProtocolVersion},
		Implementation: res.ServerInfo, Capabilities: res.Capabilities, Instructions: res.Instructions,
	}
	conn := c.conn
	c.mu.Unlock()
	frame, _ := rpcwire.EncodeNotification("notifications/initialized", nil)
	if err := conn.Send(ctx, &clientconn.Outbound{Frame: frame, Method: "notifications/initialized", ProtocolVersion: res.ProtocolVersion}); err != nil {
		return fmt.Errorf("client: notifications/initialized: %w", err)
	}
	if c.cfg.logLevel != "" && res.Capabilities.Logging != nil {
		if _, err := c.roundTrip(ctx, &request{method: "logging/setLevel", params: map[string]any{"level": c.cfg.logLevel}}); err != nil {
			return err
		}
	}
	return nil
}

// serverInfoOf reads the server's identity from a result's _meta, when
// it is there and well formed.
func serverInfoOf(meta map[string]any) (mcp.Implementation, bool) {
	v, ok := meta[mcp.MetaServerInfo]
	if !ok {
		return mcp.Implementation{}, false
	}
	raw, err := jsonwire.Marshal(v)
	if err != nil {
		return mcp.Implementation{}, false
	}
	var info mcp.Implementation
	if unmarshal(raw, &info) != nil {
		return mcp.Implementation{}, false
	}
	return info, true
}
