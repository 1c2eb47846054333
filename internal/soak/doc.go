// Package soak holds the soak test: one server serving stdio and
// Streamable HTTP at once under mixed traffic for a bounded time (see
// soak_test.go and .ci/soak). It has no API.
package soak
