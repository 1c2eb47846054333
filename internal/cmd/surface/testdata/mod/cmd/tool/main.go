package main

func Skipped() {}

func main() {}
