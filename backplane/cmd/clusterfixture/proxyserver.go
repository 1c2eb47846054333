// This file is the HTTP server of the round-robin proxy, which reads its
// request body while it writes the answer.

package main

import (
	"log/slog"
	"net/http"
	"time"
)

// proxyServer is the server of the round-robin proxy: h, a reverse
// proxy, is served in full duplex (see fullDuplex); the server's own
// errors go to logger.
func proxyServer(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{Handler: fullDuplex(h), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
}

// fullDuplex serves h with the inbound request body readable after the
// answer's head is written. A reverse proxy forwards that body while the
// answer comes back, and the transport reads it once more after the
// declared length to check it ends there; by default the HTTP/1 server
// closes the body when the head is written, so that last read fails and
// the transport tears down the connection to the next hop under the
// answer (the proxy logs "use of closed network connection", its client
// gets a cut body).
func fullDuplex(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex()
		h.ServeHTTP(w, r)
	})
}
