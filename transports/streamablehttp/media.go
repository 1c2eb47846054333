package streamablehttp

// Media types: Content-Type and Accept.

import (
	"strings"
)

// Media types of the transport.
const (
	mediaJSON = "application/json"
	mediaSSE  = "text/event-stream"
)

// contentTypeOK reports whether the Content-Type headers name exactly one
// media type, application/json, with no parameter other than a UTF-8
// charset.
func contentTypeOK(values []string) bool {
	if len(values) != 1 {
		return false
	}
	v := values[0]
	if v == mediaJSON {
		return true // the common case, without parsing
	}
	mt, params, _ := strings.Cut(v, ";")
	if !strings.EqualFold(strings.TrimSpace(mt), mediaJSON) {
		return false
	}
	for p := range strings.SplitSeq(params, ";") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		k, val, _ := strings.Cut(p, "=")
		val = strings.Trim(strings.TrimSpace(val), `"`)
		if !strings.EqualFold(strings.TrimSpace(k), "charset") || !(strings.EqualFold(val, "utf-8") || strings.EqualFold(val, "utf8")) {
			return false
		}
	}
	return true
}

// acceptOK reports whether the Accept headers accept both application/json
// and text/event-stream (directly or through a wildcard, with a non-zero
// quality). A request without Accept is refused: clients must list both.
func acceptOK(values []string) bool {
	var json, sse bool
	for _, v := range values {
		if v == "application/json, text/event-stream" || v == "text/event-stream, application/json" {
			return true // the common case, without parsing
		}
		for r := range strings.SplitSeq(v, ",") {
			mt, params, _ := strings.Cut(r, ";")
			mt = strings.ToLower(strings.TrimSpace(mt))
			if zeroQuality(params) {
				continue
			}
			switch mt {
			case "*/*":
				json, sse = true, true
			case "application/*", mediaJSON:
				json = true
			case "text/*", mediaSSE:
				sse = true
			}
		}
	}
	return json && sse
}

// zeroQuality reports whether a media range's parameters say q=0.
func zeroQuality(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		v = strings.TrimSpace(v)
		return strings.Trim(v, "0.") == "" && v != ""
	}
	return false
}

// acceptsSSE reports whether the Accept headers accept text/event-stream
// (a GET stream needs nothing else).
func acceptsSSE(values []string) bool {
	for _, v := range values {
		for r := range strings.SplitSeq(v, ",") {
			mt, params, _ := strings.Cut(r, ";")
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "*/*", "text/*", mediaSSE:
				if !zeroQuality(params) {
					return true
				}
			}
		}
	}
	return false
}
