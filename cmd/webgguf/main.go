package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	cmd, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "webgguf: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err := cmd.run(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "webgguf %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

type command struct {
	summary string
	run     func(args []string) error
}

// commands is filled by each subcommand's file in its init function.
var commands = map[string]command{}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: webgguf COMMAND [flags]\ncommands:")
	for name, c := range commands {
		fmt.Fprintf(os.Stderr, "  %-14s %s\n", name, c.summary)
	}
}
