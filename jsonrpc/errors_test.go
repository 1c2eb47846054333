package jsonrpc

import "testing"

func TestErrorIsAndAs(t *testing.T) {
	var err error = &Error{Code: CodeInvalidParams, Message: "x"}
	if !errorsIs(err, &Error{Code: CodeInvalidParams}) || errorsIs(err, &Error{Code: CodeInternalError}) {
		t.Fatal("Error.Is does not compare codes")
	}
}
