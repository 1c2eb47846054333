// Package testkit helps test snodo servers: in-memory pipes that drive a
// stdio server, a small client that sends requests and awaits their
// responses, validation of every emitted frame against the official MCP
// JSON schemas, goroutine-leak checks, and assertions over the supervision
// tree.
//
// A typical test:
//
//	func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }
//
//	func TestEcho(t *testing.T) {
//		srv := testkit.StartStdio(t, rt)
//		resp := srv.Client.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}})
//		...
//		srv.CloseInput()
//		if err := srv.Wait(t); err != nil { t.Fatal(err) }
//	}
//
// For tests that want a full client rather than raw frames, Connect
// (in process: Connect(t, inprocess.New(rt))), ConnectStdio and ConnectHTTP return a client.Client whose every
// received frame is checked against the schema of its revision
// (FrameChecker), closed when the test ends.
package testkit
