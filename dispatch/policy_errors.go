// The errors component policies answer with, and their data.

package dispatch

import (
	"errors"
	"fmt"
	"time"

	"github.com/snodo-go/snodo/jsonrpc"
)

// The JSON-RPC codes of a component policy's refusals. MCP 2026-07-28
// ("Error Codes") keeps -32000 to -32019 as legacy implementation space
// and -32020 to -32099 for the specification, and puts application
// errors outside -32768 to -32000, so these sit just above that range;
// each ends in the HTTP status of the same meaning. Over Streamable HTTP
// they are answered with 200 (they are JSON-RPC errors, not transport
// failures) and, when a retry time is known, a Retry-After header.
const (
	// CodeRateLimited: the caller's bucket is empty (or the rate
	// limiter holds its most keys). data.retryAfterMs says when to try
	// again.
	CodeRateLimited int64 = -31429
	// CodeBusy: every place of the component's concurrency limit and
	// every waiting place is taken. data.retryAfterMs is an estimate
	// from how long recent calls held their places.
	CodeBusy int64 = -31503
	// CodeCallTimedOut: the handler ran past the component's timeout.
	CodeCallTimedOut int64 = -31504
)

// ErrCallTimeout is the cause (context.Cause) of a handler's context
// cancelled by its component's timeout ([WithCallTimeout]).
var ErrCallTimeout = errors.New("dispatch: the component's call timeout passed")

// limitData is the data of a component policy's refusal: which limit,
// its bounds, and when to try again.
type limitData struct {
	// Limit is "rate", "concurrency" or "timeout".
	Limit string `json:"limit"`
	// RetryAfterMs is when to try again, in milliseconds; absent for a
	// timeout.
	RetryAfterMs int64 `json:"retryAfterMs,omitempty"`
	// Rate is a rate limit's calls per second.
	Rate float64 `json:"rate,omitempty"`
	// Burst is a rate limit's calls at once.
	Burst int `json:"burst,omitempty"`
	// MaxConcurrent is a concurrency limit's places.
	MaxConcurrent int `json:"maxConcurrent,omitempty"`
	// MaxWaiting is a concurrency limit's waiting places.
	MaxWaiting int `json:"maxWaiting,omitempty"`
	// TimeoutMs is a timeout's bound, in milliseconds.
	TimeoutMs int64 `json:"timeoutMs,omitempty"`

	retryAfter time.Duration
}

// RetryAfter is when the caller was told to try again (zero when no time
// is known); transports turn it into their own hint (HTTP's Retry-After).
func (d *limitData) RetryAfter() time.Duration { return d.retryAfter }

// retryAfterOf returns the retry time an operation's error carries, if it
// is a policy's refusal.
func retryAfterOf(err error) time.Duration {
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return 0
	}
	if d, ok := je.Data.(*limitData); ok {
		return d.retryAfter
	}
	return 0
}

// kindNoun names a component kind in messages.
func kindNoun(k ComponentKind) string {
	switch k {
	case KindTool:
		return "tool"
	case KindPrompt:
		return "prompt"
	case KindResourceTemplate:
		return "resource template"
	}
	return "resource"
}

// roundUpMs is d in whole milliseconds, rounded up, at least 1.
func roundUpMs(d time.Duration) int64 {
	ms := int64((d + time.Millisecond - 1) / time.Millisecond)
	if ms < 1 {
		ms = 1
	}
	return ms
}

func rateLimited(subject string, l *RateLimit, retry time.Duration, keys bool) *jsonrpc.Error {
	what := "Rate limit exceeded"
	if keys {
		what = "Rate limiter full"
	}
	d := &limitData{Limit: "rate", RetryAfterMs: roundUpMs(retry), Rate: float64(l.Rate), Burst: l.Burst, retryAfter: retry}
	return (&jsonrpc.Error{Code: CodeRateLimited, Message: fmt.Sprintf("%s for %s: retry after %d ms", what, subject, d.RetryAfterMs)}).WithData(d)
}

func busy(subject string, l *ConcurrencyLimit, retry time.Duration) *jsonrpc.Error {
	d := &limitData{Limit: "concurrency", RetryAfterMs: roundUpMs(retry), MaxConcurrent: l.Max, MaxWaiting: l.MaxWaiting, retryAfter: retry}
	return (&jsonrpc.Error{Code: CodeBusy, Message: fmt.Sprintf("Concurrency limit reached for %s (%d running, %d waiting): retry after %d ms",
		subject, l.Max, l.MaxWaiting, d.RetryAfterMs)}).
		WithData(d)
}

func callTimedOut(subject string, timeout time.Duration) *jsonrpc.Error {
	d := &limitData{Limit: "timeout", TimeoutMs: roundUpMs(timeout)}
	return (&jsonrpc.Error{Code: CodeCallTimedOut, Message: fmt.Sprintf("%s ran past the timeout of %d ms", subject, d.TimeoutMs)}).WithData(d)
}
