package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"text/template"
)

// service describes the per-user unit that runs `sepad run`.
type service struct {
	// Path is where the unit file goes.
	Path string
	// Content is the unit file.
	Content []byte
	// Enable and Disable are the commands that start and stop it.
	Enable, Disable [][]string
}

var systemdUnit = template.Must(template.New("unit").Parse(`# Written by sepad install --service. Remove with: sepad uninstall --service
[Unit]
Description=sepad: fitness loop for Claude Code prompts
After=default.target

[Service]
Type=simple
ExecStart={{.Bin}} run --home {{.Home}}
# systemctl --user reload sepad: SIGHUP reloads the configuration.
ExecReload=/bin/kill -HUP $MAINPID
Restart=on-failure
RestartSec=5
# SIGTERM commits pending lines before exit.
KillSignal=SIGTERM
TimeoutStopSec=30

[Install]
WantedBy=default.target
`))

var launchdPlist = template.Must(template.New("plist").Parse(`<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by sepad install --service. Remove with: sepad uninstall --service -->
<!-- Reload the configuration with: launchctl kill SIGHUP gui/$UID/dev.sepad -->
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>dev.sepad</string>
  <key>ProgramArguments</key>
  <array><string>{{.Bin}}</string><string>run</string><string>--home</string><string>{{.Home}}</string></array>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><true/>
  <key>StandardErrorPath</key><string>{{.Home}}/sepad.log</string>
</dict>
</plist>
`))

// userService returns the unit for this OS, for user home dir userHome,
// binary bin and state directory home.
func userService(goos, userHome, bin, home string) (*service, error) {
	data := struct{ Bin, Home string }{bin, home}
	var b bytes.Buffer
	switch goos {
	case "linux":
		if err := systemdUnit.Execute(&b, data); err != nil {
			return nil, err
		}
		return &service{
			Path:    filepath.Join(userHome, ".config", "systemd", "user", "sepad.service"),
			Content: b.Bytes(),
			Enable:  [][]string{{"systemctl", "--user", "daemon-reload"}, {"systemctl", "--user", "enable", "--now", "sepad.service"}},
			Disable: [][]string{{"systemctl", "--user", "disable", "--now", "sepad.service"}, {"systemctl", "--user", "daemon-reload"}},
		}, nil
	case "darwin":
		if err := launchdPlist.Execute(&b, data); err != nil {
			return nil, err
		}
		p := filepath.Join(userHome, "Library", "LaunchAgents", "dev.sepad.plist")
		return &service{
			Path:    p,
			Content: b.Bytes(),
			Enable:  [][]string{{"launchctl", "load", "-w", p}},
			Disable: [][]string{{"launchctl", "unload", "-w", p}},
		}, nil
	}
	return nil, fmt.Errorf("no service manager support for %s: run `sepad run` from your own init system", goos)
}

// installService writes and enables the user unit, printing every step
// and how to undo it. With dryRun it only prints.
func installService(w io.Writer, home string, dryRun, noStart bool) error {
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the sepad binary: %w", err)
	}
	uh, err := os.UserHomeDir()
	if err != nil {
		return err
	}
	svc, err := userService(runtime.GOOS, uh, bin, home)
	if err != nil {
		return err
	}
	if dryRun {
		fmt.Fprintf(w, "would write %s:\n%s\nwould run:\n", svc.Path, svc.Content)
		for _, c := range svc.Enable {
			fmt.Fprintf(w, "  %s\n", join(c))
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(svc.Path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(svc.Path, svc.Content, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", svc.Path, err)
	}
	fmt.Fprintf(w, "wrote %s\n", svc.Path)
	if noStart {
		fmt.Fprintln(w, "not started (--no-start); start it with:")
		for _, c := range svc.Enable {
			fmt.Fprintf(w, "  %s\n", join(c))
		}
	} else if err := runAll(w, svc.Enable); err != nil {
		return fmt.Errorf("%w\nthe unit file is written; start it by hand with the commands above, or run `sepad run` yourself", err)
	}
	fmt.Fprintln(w, "undo with: sepad uninstall --service")
	return nil
}

// uninstallService stops, disables and removes the user unit.
func uninstallService(w io.Writer, home string, dryRun bool) error {
	uh, err := os.UserHomeDir()
	if err != nil {
		return err
	}
	svc, err := userService(runtime.GOOS, uh, "", home)
	if err != nil {
		return err
	}
	if _, err := os.Stat(svc.Path); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(w, "no service installed (%s does not exist)\n", svc.Path)
		return nil
	}
	if dryRun {
		fmt.Fprintf(w, "would run:\n")
		for _, c := range svc.Disable {
			fmt.Fprintf(w, "  %s\n", join(c))
		}
		fmt.Fprintf(w, "would remove %s\n", svc.Path)
		return nil
	}
	if err := runAll(w, svc.Disable); err != nil {
		fmt.Fprintf(w, "warning: %v (removing the unit file anyway)\n", err)
	}
	if err := os.Remove(svc.Path); err != nil {
		return err
	}
	fmt.Fprintf(w, "removed %s\n", svc.Path)
	return nil
}

func runAll(w io.Writer, cmds [][]string) error {
	for _, c := range cmds {
		fmt.Fprintf(w, "running: %s\n", join(c))
		out, err := exec.Command(c[0], c[1:]...).CombinedOutput()
		if len(out) > 0 {
			w.Write(out)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", join(c), err)
		}
	}
	return nil
}

func join(c []string) string {
	var b bytes.Buffer
	for i, s := range c {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}
