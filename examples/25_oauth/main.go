// Command 25_oauth is a protected MCP server and a client that logs in to
// it, with a real OAuth authorization server between them.
//
// The server is an OAuth 2.1 resource server (package
// github.com/snodo-go/snodo/oauth): it publishes its protected resource
// metadata, accepts only JWT access tokens issued for it, and requires a
// scope per tool (files:read to read, files:write to write). The
// authorization server is the npm package oidc-provider, started on
// 127.0.0.1 (installed by npm ci from internal/authserver/node on first
// use; its user approves everything). The client (package
// github.com/snodo-go/snodo/client/oauth) is refused with 401, discovers
// the authorization server, registers itself, sends the user to log in
// (PKCE, a loopback redirect), lists the tools it may use and calls one;
// writing needs more scope, so the server answers 403 insufficient_scope
// and the client steps up.
//
//	go run . -addr 127.0.0.1:8025   # serves; open the printed login URL in a browser
//	go run . -check                 # the whole flow, the browser played by an HTTP client
//
// It is a module of its own, since the resource server's module is.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/snodo-go/snodo/client"
	clientoauth "github.com/snodo-go/snodo/client/oauth"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/authserver"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/oauth"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8025", "address the MCP server listens on")
	check := flag.Bool("check", false, "run the whole flow on ephemeral ports, the browser played by an HTTP client, and exit")
	flag.Parse()
	if *check {
		*addr = "127.0.0.1:0"
	}
	if err := run(*addr, *check); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	if *check {
		fmt.Println("check passed")
	}
}

func run(addr string, check bool) error {
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	// The authorization server.
	as, err := authserver.Start(ctx, authserver.Config{})
	if err != nil {
		return err
	}
	defer as.Close()

	// The resource server: its URL is the resource identifier, known once
	// the listener is bound.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	resource := "http://" + ln.Addr().String() + "/mcp"
	srv, err := serve(logger, ln, resource, as.Issuer)
	if err != nil {
		ln.Close()
		return err
	}
	defer srv.Close()
	if err := as.AddResource(ctx, authserver.Resource{URL: resource, Scopes: []string{"files:read", "files:write"}}); err != nil {
		return err
	}
	fmt.Println("MCP server:", resource)
	fmt.Println("authorization server:", as.Issuer)

	// The client.
	open := func(_ context.Context, authURL string) error {
		fmt.Println("log in at:", authURL)
		return nil
	}
	if check {
		open = authserver.Browser
	}
	err = use(ctx, resource, open)
	if err != nil || check {
		return err
	}
	sig, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Println("serving; Ctrl-C stops")
	<-sig.Done()
	return nil
}

// serve starts the protected MCP server on ln.
func serve(logger *slog.Logger, ln net.Listener, resource, issuer string) (*streamablehttp.Server, error) {
	text := func(s string) dispatch.ToolHandler {
		return func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			// The middleware attached the token's principal.
			who, _ := req.Info.Principal.(*oauth.Principal)
			if who == nil {
				return mcp.TextResult(s + " for nobody"), nil
			}
			return mcp.TextResult(s + " for " + who.Subject), nil
		}
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "files", Version: "1.0.0"},
		dispatch.WithLogger(logger),
		dispatch.WithAuthorizer(&oauth.ScopePolicy{Tools: map[string][]string{
			"read_file":  {"files:read"},
			"write_file": {"files:write"},
		}}),
		dispatch.WithTool(mcp.Tool{Name: "read_file", Description: "Reads the file."}, text("read")),
		dispatch.WithTool(mcp.Tool{Name: "write_file", Description: "Writes the file."}, text("written")),
	)
	if err != nil {
		return nil, err
	}
	verifier, err := oauth.NewJWTVerifier(oauth.JWTConfig{Issuer: issuer, Audience: resource})
	if err != nil {
		return nil, err
	}
	mw, err := oauth.NewMiddleware(oauth.ResourceMetadata{
		Resource:             resource,
		AuthorizationServers: []string{issuer},
		ScopesSupported:      []string{"files:read"}, // what a first login asks for; writing steps up
		ResourceName:         "Files",
	}, verifier, oauth.WithLogger(logger))
	if err != nil {
		return nil, err
	}
	return streamablehttp.Listen(rt, streamablehttp.WithListener(ln), streamablehttp.WithHTTPMiddleware(mw.Wrap))
}

// use logs in, lists the tools and calls both.
func use(ctx context.Context, resource string, open func(context.Context, string) error) error {
	logins := 0
	flow, err := clientoauth.New(resource, clientoauth.Config{
		ClientName: "25_oauth example",
		OpenURL: func(ctx context.Context, u string) error {
			logins++
			return open(ctx, u)
		},
	})
	if err != nil {
		return err
	}
	tr := &client.HTTPTransport{URL: resource}
	tr.TokenSource = flow
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute) // a person may take a while to log in
	defer cancel()
	c, err := client.New(ctx, tr, client.WithLimits(client.Limits{ProbeTimeout: 5 * time.Minute, RequestTimeout: 5 * time.Minute}))
	if err != nil {
		return err
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	if err != nil {
		return err
	}
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	fmt.Println("tools this token may use:", strings.Join(names, ", "))
	if !slices.Equal(names, []string{"read_file"}) {
		return fmt.Errorf("listed %v, want only read_file", names)
	}
	for _, tool := range []string{"read_file", "write_file"} {
		res, err := c.CallTool(ctx, tool, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", tool, err)
		}
		if len(res.Content) != 1 || !strings.HasSuffix(mcp.TextOf(res.Content), " for alice") {
			return fmt.Errorf("%s: %+v", tool, res.Content)
		}
		fmt.Printf("%s: %s (logins so far: %d)\n", tool, mcp.TextOf(res.Content), logins)
	}
	if logins != 2 {
		return errors.New("want two logins: the first, and the step-up to files:write")
	}
	return nil
}
