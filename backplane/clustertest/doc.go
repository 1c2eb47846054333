// Package clustertest starts several instances of one MCP server in a
// test, the way a deployment behind a load balancer runs them: each
// instance is a dispatch.Runtime whose listen streams are served through
// backplane.Events, on one embedded NATS server (with JetStream) shared
// by all, and each is served by the native Streamable HTTP listener on
// 127.0.0.1. In front of them a round-robin reverse proxy on 127.0.0.1
// sends each request to the next instance, with no affinity.
//
// A typical test:
//
//	func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }
//
//	func TestAcrossInstances(t *testing.T) {
//		cl := clustertest.Start(t, clustertest.Config{
//			Instances: 3,
//			Options: func(in *clustertest.Instance) []dispatch.Option {
//				return []dispatch.Option{dispatch.WithTool(...)}
//			},
//		})
//		c := testkit.Connect(t, &client.HTTPTransport{URL: cl.URL()})
//		...
//		cl.Instances[1].Stop(t) // the proxy skips it from now on
//		cl.NATS.Stop(t)         // and cl.NATS.Start(t) brings it back
//	}
//
// With Config.Sessions, each instance also issues initialize-era
// sessions and relays the requests of every other instance's sessions to
// it (backplane.Sessions), so that a 2025-11-25 or 2025-06-18 client
// works through the proxy.
//
// Everything a Cluster starts is stopped by the test's cleanup, so the
// package's goroutine-leak check (testkit.VerifyTestMain) holds.
package clustertest
