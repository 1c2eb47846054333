package streamablehttp

// Origin and Host rules.

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// hostRule is one allowed host: a name, and a port when the rule pins it.
type hostRule struct {
	host string // lower case, IPv6 without brackets
	port string // "" when any port is allowed
}

// parseHostRules parses entries such as "localhost", "localhost:3000",
// "::1" and "[::1]:3000".
func parseHostRules(entries []string) ([]hostRule, error) {
	rules := make([]hostRule, 0, len(entries))
	for _, e := range entries {
		r, ok := parseHostRule(e)
		if !ok {
			return nil, fmt.Errorf("streamablehttp: %q is not a host or host:port", e)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func parseHostRule(e string) (hostRule, bool) {
	e = strings.TrimSpace(e)
	if e == "" || strings.ContainsAny(e, "/@?# ") {
		return hostRule{}, false
	}
	if strings.Count(e, ":") > 1 && !strings.HasPrefix(e, "[") {
		return hostRule{host: strings.ToLower(e)}, true // a bare IPv6 address
	}
	if h, p, err := net.SplitHostPort(e); err == nil {
		if h == "" || p == "" {
			return hostRule{}, false
		}
		return hostRule{host: strings.ToLower(h), port: p}, true
	}
	if strings.HasPrefix(e, "[") {
		if !strings.HasSuffix(e, "]") {
			return hostRule{}, false
		}
		e = e[1 : len(e)-1]
	}
	return hostRule{host: strings.ToLower(e)}, true
}

func allowed(rules []hostRule, host, port string) bool {
	host = strings.TrimSuffix(host, ".")
	for _, r := range rules {
		if strings.EqualFold(r.host, host) && (r.port == "" || r.port == port) {
			return true
		}
	}
	return false
}

// originAllowed checks the Origin headers of a request: none is fine; more
// than one, an unparsable one, one with userinfo, or one naming a host
// not in rules is refused.
func originAllowed(rules []hostRule, values []string) bool {
	switch len(values) {
	case 0:
		return true
	case 1:
	default:
		return false
	}
	u, err := url.Parse(strings.TrimSpace(values[0]))
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || u.Opaque != "" {
		return false
	}
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return allowed(rules, u.Hostname(), port)
}

// hostAllowed checks the Host header against rules.
func hostAllowed(rules []hostRule, hostport string) bool {
	if hostport == "" {
		return false
	}
	host, port := hostport, ""
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		host, port = h, p
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	return allowed(rules, host, port)
}
