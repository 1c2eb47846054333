// This file validates frames against the official MCP JSON schemas.

package testkit

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed testdata/spec/*/schema.json
var specFS embed.FS

// schemaSet is one revision's compiled schema, compiled lazily per
// definition.
type schemaSet struct {
	version string
	defsKey string // "$defs" or "definitions"
	url     string
	comp    *jsonschema.Compiler

	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema
}

var (
	schemasMu sync.Mutex
	schemas   = map[string]*schemaSet{}
)

func schemaFor(version string) (*schemaSet, error) {
	schemasMu.Lock()
	defer schemasMu.Unlock()
	if s, ok := schemas[version]; ok {
		return s, nil
	}
	data, err := specFS.ReadFile("testdata/spec/" + version + "/schema.json")
	if err != nil {
		return nil, fmt.Errorf("testkit: no schema for %q", version)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	s := &schemaSet{version: version, url: "https://schemas.snodo.test/" + version + ".json", compiled: map[string]*jsonschema.Schema{}}
	s.defsKey = "$defs"
	if version == "2025-06-18" {
		s.defsKey = "definitions"
	}
	s.comp = jsonschema.NewCompiler()
	s.comp.AssertFormat()
	if err := s.comp.AddResource(s.url, doc); err != nil {
		return nil, err
	}
	schemas[version] = s
	return s, nil
}

func (s *schemaSet) def(name string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled[name]; ok {
		return sch, nil
	}
	sch, err := s.comp.Compile(s.url + "#/" + s.defsKey + "/" + name)
	if err != nil {
		return nil, err
	}
	s.compiled[name] = sch
	return sch, nil
}

func (s *schemaSet) validate(name string, v any) error {
	sch, err := s.def(name)
	if err != nil {
		return err
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%s %s: %w", s.version, name, err)
	}
	return nil
}

// tasksSchema is the directory of the tasks extension's schema
// (io.modelcontextprotocol/tasks), which 2026-07-28 servers may speak.
const tasksSchema = "ext-tasks"

// taskResultDefs names the result definition of each method of the tasks
// extension, in its schema.
var taskResultDefs = map[string]string{
	"tasks/get":    "GetTaskResult",
	"tasks/update": "UpdateTaskResult",
	"tasks/cancel": "CancelTaskResult",
}

// resultDefs names the result definition of each method.
var resultDefs = map[string]string{
	"initialize":               "InitializeResult",
	"ping":                     "EmptyResult",
	"server/discover":          "DiscoverResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"resources/subscribe":      "EmptyResult",
	"resources/unsubscribe":    "EmptyResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"completion/complete":      "CompleteResult",
	"logging/setLevel":         "EmptyResult",
	"subscriptions/listen":     "SubscriptionsListenResult",
}

// notificationDefs names the definition of each server notification.
var notificationDefs = map[string]string{
	"notifications/progress":                   "ProgressNotification",
	"notifications/message":                    "LoggingMessageNotification",
	"notifications/cancelled":                  "CancelledNotification",
	"notifications/tools/list_changed":         "ToolListChangedNotification",
	"notifications/prompts/list_changed":       "PromptListChangedNotification",
	"notifications/resources/list_changed":     "ResourceListChangedNotification",
	"notifications/resources/updated":          "ResourceUpdatedNotification",
	"notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
	"notifications/elicitation/complete":       "ElicitationCompleteNotification",
}

// requestDefs names the definition of each server-to-client request.
var requestDefs = map[string]string{
	"sampling/createMessage": "CreateMessageRequest",
	"elicitation/create":     "ElicitRequest",
	"roots/list":             "ListRootsRequest",
	"ping":                   "PingRequest",
}

// ValidateFrame checks one frame the server emitted against the official
// schema of version. method is the method of the request a response
// answers ("" when unknown); notifications and requests carry their own.
func ValidateFrame(version string, frame []byte, method string) error {
	s, err := schemaFor(version)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(frame))
	if err != nil {
		return fmt.Errorf("testkit: frame is not JSON: %w", err)
	}
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result map[string]any  `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(frame, &head); err != nil {
		return fmt.Errorf("testkit: frame is not an object: %w", err)
	}
	obj := v.(map[string]any)
	switch {
	case head.Error != nil:
		name := "JSONRPCErrorResponse"
		if version == "2025-06-18" {
			name = "JSONRPCError"
		}
		return s.validate(name, v)
	case head.Method != "" && head.ID != nil:
		if name, ok := requestDefs[head.Method]; ok {
			return s.validate(name, v)
		}
		return s.validate("JSONRPCRequest", v)
	case head.Method != "":
		if name, ok := notificationDefs[head.Method]; ok {
			return s.validate(name, v)
		}
		if head.Method == "notifications/tasks" && version == "2026-07-28" {
			ext, err := schemaFor(tasksSchema)
			if err != nil {
				return err
			}
			return ext.validate("TaskStatusNotification", v)
		}
		return s.validate("JSONRPCNotification", v)
	case head.Result != nil:
		envelope := "JSONRPCResultResponse"
		if version == "2025-06-18" {
			envelope = "JSONRPCResponse"
		}
		if err := s.validate(envelope, v); err != nil {
			return err
		}
		result := obj["result"]
		if version == "2026-07-28" {
			if err := s.validate("Result", result); err != nil {
				return err
			}
			if head.Result["resultType"] == "input_required" {
				return s.validate("InputRequiredResult", result)
			}
			// The tasks extension's results live in its own schema: a
			// task handle in place of a method's result, and the results
			// of its methods.
			name, isTask := taskResultDefs[method]
			if head.Result["resultType"] == "task" {
				name, isTask = "CreateTaskResult", true
			}
			if isTask {
				ext, err := schemaFor(tasksSchema)
				if err != nil {
					return err
				}
				return ext.validate(name, result)
			}
		}
		if name, ok := resultDefs[method]; ok {
			return s.validate(name, result)
		}
		return nil
	}
	return fmt.Errorf("testkit: frame is neither a response, a request nor a notification: %s", frame)
}
