//go:build ignore

package main

func Generated() {}
