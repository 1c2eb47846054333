//go:build !race

package lib

const Race = false
