package load

// Raw HTTP/1.1 exchanges for the scenarios that hold one connection per
// call or stream (the HTTP storm and the HTTP listen streams): the driver
// writes each request itself on its own connection, so it can close its
// side of exactly that connection, and keeps no client state per
// connection beyond the socket.

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// rawEndpoint is where raw requests go: the address to dial and the
// request line's path and Host.
type rawEndpoint struct {
	addr, host, path string
}

func parseEndpoint(u string) (rawEndpoint, error) {
	p, err := url.Parse(u)
	if err != nil {
		return rawEndpoint{}, err
	}
	if p.Scheme != "http" {
		return rawEndpoint{}, fmt.Errorf("load: %s: only http:// endpoints", u)
	}
	path := p.EscapedPath()
	if path == "" {
		path = "/"
	}
	return rawEndpoint{addr: p.Host, host: p.Host, path: path}, nil
}

// appendRawPost appends a 2026-07-28 POST of body with every header the
// revision requires (as NewHTTPRequest sets them).
func (e rawEndpoint) appendRawPost(b []byte, method, name string, body []byte) []byte {
	b = append(b, "POST "...)
	b = append(b, e.path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, e.host...)
	b = append(b, "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: "...)
	b = append(b, ProtocolVersion...)
	b = append(b, "\r\nMcp-Method: "...)
	b = append(b, method...)
	if name != "" {
		b = append(b, "\r\nMcp-Name: "...)
		b = append(b, name...)
	}
	b = append(b, "\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	return append(b, body...)
}

// dial opens one connection to the endpoint, retrying for up to 2 s when
// the listener's backlog is momentarily full.
func (e rawEndpoint) dial() (*net.TCPConn, error) {
	deadline := time.Now().Add(2 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", e.addr, 5*time.Second)
		if err == nil {
			return c.(*net.TCPConn), nil
		}
		if time.Now().After(deadline) {
			return nil, err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// readRawResponse reads one response's head from br and, for a JSON
// reply, its frame; for an event stream it reads events until one whose
// data is a JSON-RPC message matching want, and returns that frame. A
// reply that is neither is returned as an error naming its status.
func readRawResponse(br *bufio.Reader, want func(Frame) bool) (Frame, *http.Response, error) {
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return Frame{}, nil, err
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 4<<10), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data:")
			if !ok {
				continue
			}
			f, err := ParseFrame([]byte(strings.TrimSpace(data)))
			if err != nil {
				return Frame{}, resp, err
			}
			if want(f) {
				return f, resp, nil
			}
		}
		if err := sc.Err(); err != nil {
			return Frame{}, resp, err
		}
		return Frame{}, resp, fmt.Errorf("load: event stream ended before the expected message (HTTP %d)", resp.StatusCode)
	}
	f, err := ReadHTTPResponse(resp)
	return f, resp, err
}

// FileLimit raises the process's open-file soft limit to its hard limit
// (Go does so at start-up already; this makes sure) and returns the soft
// limit now in force.
func FileLimit() (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
		}
	}
	return lim.Cur, nil
}
