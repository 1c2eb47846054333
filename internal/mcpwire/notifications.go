// The protocol's notification methods, for transports that tell them from
// application notifications.

package mcpwire

// protocolNotifications are the notification methods the protocol
// revisions define, in either direction (2025-06-18, 2025-11-25,
// 2026-07-28).
var protocolNotifications = map[string]bool{
	"notifications/cancelled":                  true,
	"notifications/elicitation/complete":       true,
	"notifications/initialized":                true,
	"notifications/message":                    true,
	"notifications/progress":                   true,
	"notifications/prompts/list_changed":       true,
	"notifications/resources/list_changed":     true,
	"notifications/resources/updated":          true,
	"notifications/roots/list_changed":         true,
	"notifications/subscriptions/acknowledged": true,
	"notifications/tasks/status":               true,
	"notifications/tools/list_changed":         true,
}

// IsProtocolNotification reports whether method is a notification a
// protocol revision defines. Transports refuse such names as application
// notifications: the protocol gives them meanings the application cannot
// honour by sending a frame.
func IsProtocolNotification(method string) bool { return protocolNotifications[method] }
