// Package browsertest drives the supervision tree's debug page in a real
// browser: headless Chromium, through the DevTools protocol
// (github.com/chromedp/chromedp), against a server with live traffic.
// It is a module of its own so that the core module's tests need neither
// the library nor a browser; .ci/run installs Chromium and runs it.
// Without Chromium on the PATH its test fails rather than skips.
package browsertest
