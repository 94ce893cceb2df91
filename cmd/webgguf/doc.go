// Package main is the native command line: inspect, gen, run, eval, embed, bench.
package main
