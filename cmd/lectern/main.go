// Command lectern is Lectern's single binary: the API server and job
// workers (serve), operator commands (admin), and the other tools.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"lectern.dev/lectern/cli"
)

func main() {
	cli.OwnProcess = true
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.Run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		os.Exit(cli.Report(os.Stderr, err))
	}
}
