// The params of the notifications both sides read: progress, log
// messages, and the subscription filter of subscriptions/listen.

package mcp

// Progress is one progress report (notifications/progress, without its
// token). Progress increases from one report to the next; Total is left
// out when zero.
type Progress struct {
	// Progress is how far the work has come.
	Progress float64 `json:"progress"`
	// Total is where it ends, when known.
	Total float64 `json:"total,omitempty"`
	// Message says what is happening.
	Message string `json:"message,omitempty"`
}

// LogMessage is one notifications/message.
type LogMessage struct {
	// Level is a syslog level name: debug, info, notice, warning, error,
	// critical, alert or emergency.
	Level string `json:"level"`
	// Logger names the logger, when the server gave one.
	Logger string `json:"logger,omitempty"`
	// Data is the message: any JSON value.
	Data any `json:"data"`
}

// SubscriptionFilter is the set of notifications a subscriptions/listen
// stream carries (2026-07-28): the "notifications" member of the request
// and of its acknowledgement. Every kind is opt-in.
type SubscriptionFilter struct {
	// ToolsListChanged: notifications/tools/list_changed.
	ToolsListChanged bool `json:"toolsListChanged,omitempty"`
	// PromptsListChanged: notifications/prompts/list_changed.
	PromptsListChanged bool `json:"promptsListChanged,omitempty"`
	// ResourcesListChanged: notifications/resources/list_changed.
	ResourcesListChanged bool `json:"resourcesListChanged,omitempty"`
	// ResourceSubscriptions are absolute URIs whose
	// notifications/resources/updated the stream carries.
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// Keys are the members extensions add to the filter, by member name:
	// each an array of string keys naming what the stream follows, such
	// as the task ids of the tasks extension's taskIds (FilterTaskIDs).
	// On the wire each is a member of the filter object beside the core
	// ones; decoding keeps every other member that is an array of
	// strings and ignores the rest.
	Keys map[string][]string `json:"-"`
}
