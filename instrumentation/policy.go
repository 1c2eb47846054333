package instrumentation

// Component policy events: what a component's deadline, concurrency
// limit and rate limit decided for one call.

import "time"

// PolicyEventKind says what a component policy decided.
// Its value is its name, as metric labels use it.
type PolicyEventKind string

const (
	// PolicyAdmitted: the call passed the policy and runs (Wait says how
	// long it waited for a place first; zero when it did not).
	PolicyAdmitted PolicyEventKind = "admitted"
	// PolicyWaiting: the call found every place of a concurrency limit
	// taken and waits in its queue, having given its execution slot back.
	PolicyWaiting PolicyEventKind = "waiting"
	// PolicyRefused: the call was refused (Reason says why).
	PolicyRefused PolicyEventKind = "refused"
	// PolicyCancelled: the call's context ended while it waited; it left
	// the queue at once.
	PolicyCancelled PolicyEventKind = "cancelled"
	// PolicyTimedOut: the call ran past the component's timeout.
	PolicyTimedOut PolicyEventKind = "timed_out"
)

// PolicyEvent describes one decision of a component policy.
type PolicyEvent struct {
	// Kind says what the policy decided.
	Kind PolicyEventKind
	// Policy is the policy that decided: "rate", "concurrency" or
	// "timeout".
	Policy string
	// Method is the JSON-RPC method: "tools/call", "resources/read" or
	// "prompts/get".
	Method string
	// Component is the registered tool, prompt, resource URI or resource
	// template (never a concrete URI a template matched).
	Component string
	// Reason is set on PolicyRefused: "rate" (the key's bucket is empty),
	// "keys" (the rate limiter holds its most keys, none idle) or
	// "queue_full" (every place and every waiting place is taken).
	Reason string
	// Wait is set on PolicyAdmitted and PolicyCancelled: the time spent
	// waiting for a place.
	Wait time.Duration
	// RetryAfter is set on PolicyRefused: when the caller was told to
	// try again.
	RetryAfter time.Duration
	// Running and Waiting are a concurrency limit's counts just after
	// the decision (zero for the other policies).
	Running, Waiting int
}
