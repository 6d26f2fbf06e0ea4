package main

import (
	"github.com/spf13/cobra"

	"github.com/memd-dev/memd/api"
)

func newForgetCmd(a *app) *cobra.Command {
	return removalCmd(a, "forget PATH", "Drop one note from the index until its file changes",
		(*api.Client).Forget, "forgot %s; it stays out of the index until the file changes\n")
}
