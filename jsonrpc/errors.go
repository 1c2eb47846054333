package jsonrpc

// The JSON-RPC error object and its standard codes.

import (
	"errors"
	"fmt"
)

// The JSON-RPC 2.0 error codes. The codes MCP adds are in package mcp.
const (
	CodeParseError     = -32700 // invalid JSON
	CodeInvalidRequest = -32600 // not a valid JSON-RPC request
	CodeMethodNotFound = -32601 // unknown or unsupported method
	CodeInvalidParams  = -32602 // invalid method parameters
	CodeInternalError  = -32603 // internal server error
)

// Error is a JSON-RPC error object. It implements error, so handlers can
// return it to choose the code a client sees; errors.As finds it through
// wrapping.
type Error struct {
	// Code is the JSON-RPC error code, such as [CodeInvalidParams].
	Code int64 `json:"code"`
	// Message is a short description of the error.
	Message string `json:"message"`
	// Data is optional and free-form; it must be encodable as JSON.
	Data any `json:"data,omitempty"`
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams}) works.
func (e *Error) Is(target error) bool {
	var t *Error
	if !errors.As(target, &t) {
		return false
	}
	return t.Code == e.Code
}

// WithData returns a copy of e carrying data.
func (e *Error) WithData(data any) *Error {
	c := *e
	c.Data = data
	return &c
}
