package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"text/template"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd/internal/autostart"
)

// service is memd as a per-user service of the platform's service
// manager: systemd user units with socket activation on Linux, a launchd
// agent on macOS.
type service struct {
	// Memd, Data and Socket are what memd runs with: absolute paths.
	Memd, Data, Socket string
	home               string
}

// unit is one file the service installs.
type unit struct {
	path, text string
}

var systemdSocket = parseUnit("memd.socket", `[Unit]
Description=memd socket: the local memory daemon for your notes
Documentation=https://github.com/memd-dev/memd

[Socket]
ListenStream={{.Socket | unitPath}}
SocketMode=0600
DirectoryMode=0700
RemoveOnStop=yes

[Install]
WantedBy=sockets.target
`)

// memd logs to stderr, which the journal keeps (journalctl --user -u memd).
var systemdService = parseUnit("memd.service", `[Unit]
Description=memd: the local memory daemon for your notes
Documentation=https://github.com/memd-dev/memd
Requires=memd.socket
After=memd.socket

[Service]
Type=exec
ExecStart={{.Memd | unitArg}} --data {{.Data | unitArg}} --socket {{.Socket | unitArg}}
Restart=on-failure
RestartSec=2
TimeoutStopSec=30

[Install]
WantedBy=default.target
`)

var launchdAgent = parseUnit("plist", `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>`+launchdLabel+`</string>
	<key>ProgramArguments</key>
	<array>
		<string>{{.Memd | xml}}</string>
		<string>--data</string>
		<string>{{.Data | xml}}</string>
		<string>--socket</string>
		<string>{{.Socket | xml}}</string>
	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<true/>
	<key>ProcessType</key>
	<string>Background</string>
	<key>StandardOutPath</key>
	<string>{{.LogFile | xml}}</string>
	<key>StandardErrorPath</key>
	<string>{{.LogFile | xml}}</string>
</dict>
</plist>
`)

const launchdLabel = "dev.memd.memd"

// parseUnit returns a unit's template, parsed on first use: every memctl
// start would pay for templates that only service install writes.
func parseUnit(name, text string) func() *template.Template {
	return sync.OnceValue(func() *template.Template {
		funcs := template.FuncMap{"unitPath": unitPath, "unitArg": unitArg, "xml": xmlText}
		return template.Must(template.New(name).Funcs(funcs).Parse(text))
	})
}

// xmlText escapes text for a plist string. text/template's HTML escaping
// is XML's too (&lt; &gt; &amp; &#39; &#34;), so encoding/xml, whose
// package init every memctl start would pay, stays out; the control
// characters XML 1.0 cannot hold at all are refused instead.
func xmlText(s string) (string, error) {
	if i := strings.IndexFunc(s, func(r rune) bool { return r < ' ' && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF }); i >= 0 {
		return "", fmt.Errorf("%q holds a control character that a launchd plist cannot hold; use a path without one", s)
	}
	return template.HTMLEscapeString(s), nil
}

// unitPath escapes a path for a unit file setting: % is a specifier.
func unitPath(p string) string { return strings.ReplaceAll(p, "%", "%%") }

// unitArg quotes one ExecStart argument (systemd.service(5), "Command
// lines"): double quotes keep spaces, backslash escapes.
func unitArg(s string) string {
	s = unitPath(s)
	if !strings.ContainsAny(s, " \t\"'\\;$") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `$$`)
	return `"` + r.Replace(s) + `"`
}

// LogFile is where launchd writes memd's output.
func (s service) LogFile() string {
	return filepath.Join(s.home, "Library", "Logs", "memd", "memd.log")
}

// units renders the files of the service for goos.
func (s service) units(goos string) ([]unit, error) {
	render := func(t *template.Template, path string) (unit, error) {
		var b bytes.Buffer
		err := t.Execute(&b, s)
		return unit{path, b.String()}, err
	}
	var tmpls []*template.Template
	var paths []string
	switch goos {
	case "linux":
		dir := filepath.Join(s.configHome(), "systemd", "user")
		tmpls = []*template.Template{systemdSocket(), systemdService()}
		paths = []string{filepath.Join(dir, "memd.socket"), filepath.Join(dir, "memd.service")}
	case "darwin":
		tmpls = []*template.Template{launchdAgent()}
		paths = []string{filepath.Join(s.home, "Library", "LaunchAgents", launchdLabel+".plist")}
	default:
		return nil, fmt.Errorf("memctl service knows systemd (Linux) and launchd (macOS), not %s; run memd from your own init", goos)
	}
	var out []unit
	for i, t := range tmpls {
		u, err := render(t, paths[i])
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

func (s service) configHome() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	return filepath.Join(s.home, ".config")
}

// service describes memd's service for this user; only installing needs
// the memd binary (uninstall and status look at the files by name).
func (a *app) service(needBinary bool) (service, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return service{}, err
	}
	s := service{Memd: "memd", Data: a.data, Socket: a.socket, home: home}
	if !needBinary {
		return s, nil
	}
	bin, err := autostart.FindMemd()
	if err != nil {
		return service{}, err
	}
	s.Memd, err = filepath.Abs(bin)
	return s, err
}

func newServiceCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service",
		Short: "Run memd as your user service: started at login, restarted when it fails",
		Long: `service installs memd as a per-user service. On Linux: systemd user units
memd.socket and memd.service; systemd holds the socket from login on and
starts memd at the first request; memd's log is in the journal
(journalctl --user -u memd). On macOS: a launchd agent kept alive, its log
in ~/Library/Logs/memd/memd.log.`,
	}
	var printOnly bool
	install := &cobra.Command{
		Use:   "install",
		Short: "Install and start memd as your user service",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, units, err := a.serviceUnits(true)
			if err != nil {
				return err
			}
			if printOnly {
				for _, u := range units {
					fmt.Fprintf(a.out, "# %s\n%s\n", u.path, u.text)
				}
				return nil
			}
			return a.installService(cmd.Context(), s, units)
		},
	}
	install.Flags().BoolVar(&printOnly, "print", false, "print the unit files instead of installing them")
	uninstall := &cobra.Command{
		Use:   "uninstall",
		Short: "Stop memd's user service and remove its files (the index stays)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, units, err := a.serviceUnits(false)
			if err != nil {
				return err
			}
			return a.uninstallService(cmd.Context(), units)
		},
	}
	status := &cobra.Command{
		Use:   "status",
		Short: "Say whether memd's service is installed and running, and where its log is",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, units, err := a.serviceUnits(false)
			if err != nil {
				return err
			}
			a.serviceStatus(cmd.Context(), s, units)
			return nil
		},
	}
	cmd.AddCommand(install, uninstall, status)
	return cmd
}

// serviceUnits finds the service (needBinary: the memd binary must exist)
// and the unit files it takes on this system.
func (a *app) serviceUnits(needBinary bool) (service, []unit, error) {
	s, err := a.service(needBinary)
	if err != nil {
		return s, nil, err
	}
	units, err := s.units(runtime.GOOS)
	return s, units, err
}

// installService writes the units and starts them. A memd already running
// on the socket (one memctl started) stops first: the service must take
// the socket over.
func (a *app) installService(ctx context.Context, s service, units []unit) error {
	for _, u := range units {
		if err := os.MkdirAll(filepath.Dir(u.path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(u.path, []byte(u.text), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", u.path, err)
		}
		fmt.Fprintln(a.out, "wrote", u.path)
	}
	if pid, err := a.stopDaemon(ctx); err != nil {
		return err
	} else if pid != 0 {
		fmt.Fprintf(a.out, "stopped the memd that was running (pid %d) so the service takes its socket\n", pid)
	}
	if runtime.GOOS == "darwin" { // launchd opens the log, but makes no folders
		if err := os.MkdirAll(filepath.Dir(s.LogFile()), 0o755); err != nil {
			return err
		}
	}
	if err := a.runSteps(ctx, serviceStart(units)); err != nil {
		return err
	}
	if runtime.GOOS == "darwin" {
		fmt.Fprintf(a.out, "memd runs as a launchd agent; its log is %s\n", s.LogFile())
	} else {
		fmt.Fprintln(a.out, "memd's socket is live; memd starts at the first request. Log: journalctl --user -u memd")
	}
	return nil
}

// serviceStart is the commands that start the installed units.
func serviceStart(units []unit) [][]string {
	if runtime.GOOS == "darwin" {
		return [][]string{{"launchctl", "bootstrap", fmt.Sprintf("gui/%d", os.Getuid()), units[0].path}}
	}
	return [][]string{
		{"systemctl", "--user", "daemon-reload"},
		{"systemctl", "--user", "enable", "--now", "memd.socket"},
	}
}

// runSteps runs commands in order; a missing service manager (a container
// without a user systemd) is not an error: the files are in place, and
// the person is told what to run once it is there.
func (a *app) runSteps(ctx context.Context, steps [][]string) error {
	for _, step := range steps {
		out, err := exec.CommandContext(ctx, step[0], step[1:]...).CombinedOutput()
		if errors.Is(err, exec.ErrNotFound) {
			fmt.Fprintf(a.errOut, "memctl: %s is not here; run this where it is: %s\n", step[0], strings.Join(step, " "))
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(step, " "), err, bytes.TrimSpace(out))
		}
	}
	return nil
}

// installedUnits sorts the service's files into those present and the
// paths of those missing. The service is installed when none is missing
// and not installed when none is present; uninstall removes any that are,
// and status says so, so that the two agree on a half-installed service.
func installedUnits(units []unit) (present []unit, missing []string) {
	for _, u := range units {
		if _, err := os.Stat(u.path); err == nil {
			present = append(present, u)
		} else {
			missing = append(missing, u.path)
		}
	}
	return present, missing
}

func (a *app) uninstallService(ctx context.Context, units []unit) error {
	var steps [][]string
	if runtime.GOOS == "darwin" {
		steps = [][]string{{"launchctl", "bootout", fmt.Sprintf("gui/%d/%s", os.Getuid(), launchdLabel)}}
	} else {
		steps = [][]string{{"systemctl", "--user", "disable", "--now", "memd.socket", "memd.service"}}
	}
	present, _ := installedUnits(units)
	if len(present) == 0 {
		fmt.Fprintln(a.out, "memd's service is not installed")
		return nil
	}
	if err := a.runSteps(ctx, steps); err != nil {
		return err
	}
	for _, u := range present {
		if err := os.Remove(u.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		fmt.Fprintln(a.out, "removed", u.path)
	}
	if runtime.GOOS == "linux" {
		a.runSteps(ctx, [][]string{{"systemctl", "--user", "daemon-reload"}})
	}
	fmt.Fprintln(a.out, "memd's service is uninstalled; your index stays in", a.data)
	return nil
}

func (a *app) serviceStatus(ctx context.Context, s service, units []unit) {
	switch present, missing := installedUnits(units); {
	case len(present) == 0:
		fmt.Fprintln(a.out, "service: not installed (memctl service install)")
	case len(missing) > 0:
		fmt.Fprintf(a.out, "service: partly installed, %s missing (memctl service install writes it again; memctl service uninstall removes the rest)\n",
			strings.Join(missing, ", "))
	default:
		fmt.Fprintf(a.out, "service: installed (%s)\n", units[0].path)
	}
	if runtime.GOOS == "linux" {
		for _, name := range []string{"memd.socket", "memd.service"} {
			out, err := exec.CommandContext(ctx, "systemctl", "--user", "is-active", name).Output()
			state := strings.TrimSpace(string(out))
			if errors.Is(err, exec.ErrNotFound) || state == "" {
				state = "unknown (no systemctl --user here)"
			}
			fmt.Fprintf(a.out, "%s: %s\n", name, state)
		}
		fmt.Fprintln(a.out, "log: journalctl --user -u memd")
	} else if runtime.GOOS == "darwin" {
		fmt.Fprintln(a.out, "log:", s.LogFile())
	}
	if autostart.Answers(a.socket) {
		fmt.Fprintf(a.out, "memd: answering on %s\n", a.socket)
	} else {
		fmt.Fprintf(a.out, "memd: not answering on %s\n", a.socket)
	}
}
