// Package jsonwire is the byte-level JSON shared by the wire layer, the
// dispatch core, the transports and the client: the bounded scanner (one
// allocation-free pass checking syntax, UTF-8, nesting and digit runs),
// member lookup without decoding, the json-iterator configuration, and
// encoders that escape every non-ASCII character.
//
// The bounds are those package jsonrpc documents for every transport:
// [MaxNumberDigits] digits in a run, [MaxDepth] levels of nesting.
package jsonwire
