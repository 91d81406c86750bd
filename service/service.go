// Package service installs sepad's daemon as the user's service: a
// systemd user unit on Linux, a launchd agent on macOS, a scheduled task
// on Windows (docs/install.md); it writes the unit, runs the service
// manager's commands and prints each step, and makes the running daemon
// read its configuration again (Reload: SIGHUP, or the task restarted).
package service

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strings"
	"text/template"
	"unicode/utf16"

	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/promptfile"
)

// Unit describes the per-user unit that runs `sepad run`.
type Unit struct {
	// Path is where the unit file goes.
	Path string
	// Content is the unit file as written.
	Content []byte
	// Enable and Disable are the commands that start and stop it;
	// Reload makes the running daemon read its configuration again.
	Enable, Disable, Reload [][]string
}

// serviceFuncs escape the template's values: XML text in the plist and
// the task, a quoted argument on a Windows command line.
var serviceFuncs = template.FuncMap{"xml": xmlText, "winarg": windowsArg}

var systemdUnit = template.Must(template.New("unit").Parse(`# Written by sepad install --service. Remove with: sepad uninstall --service
[Unit]
Description=sepad: fitness loop for Claude Code prompts
After=default.target

[Service]
Type=simple
ExecStart={{.Bin}} run --home {{.Home}}
# systemctl --user reload sepad (or sepad reload): SIGHUP reloads the configuration.
ExecReload=/bin/kill -HUP $MAINPID
Restart=on-failure
RestartSec=5
# SIGTERM commits pending lines before exit.
KillSignal=SIGTERM
TimeoutStopSec=30

[Install]
WantedBy=default.target
`))

// launchdLabel names the launchd agent.
const launchdLabel = "dev.sepad"

// launchd has no reload action: `sepad reload`, or launchctl kill, sends
// the daemon SIGHUP. XML comments may not hold "--", so the comments name
// the flag in words.
var launchdPlist = template.Must(template.New("plist").Funcs(serviceFuncs).Parse(`<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by sepad install with its service flag; sepad uninstall with the same flag removes it. -->
<!-- Reload the configuration with: sepad reload, or launchctl kill SIGHUP gui/$UID/{{.Label}} -->
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>{{.Label}}</string>
  <key>ProgramArguments</key>
  <array><string>{{xml .Bin}}</string><string>run</string><string>--home</string><string>{{xml .Home}}</string></array>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><true/>
  <key>StandardErrorPath</key><string>{{xml .Home}}/sepad.log</string>
</dict>
</plist>
`))

// windowsTaskName names the scheduled task.
const windowsTaskName = "sepad"

// windowsTask is a per-user scheduled task (Task Scheduler schema 1.2)
// that starts `sepad run` when the user logs on, restarts it when it
// fails, and never stops it for running long. It is written in UTF-16
// with a byte order mark, the encoding schtasks /Create /XML reads.
var windowsTask = template.Must(template.New("task").Funcs(serviceFuncs).Parse(`<?xml version="1.0" encoding="UTF-16"?>
<!-- Written by sepad install with its service flag; sepad uninstall with the same flag removes it. -->
<!-- Reload the configuration by restarting the task: sepad reload -->
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>sepad: fitness loop for Claude Code prompts</Description>
  </RegistrationInfo>
  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>
      <UserId>{{xml .User}}</UserId>
    </LogonTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">
      <UserId>{{xml .User}}</UserId>
      <LogonType>InteractiveToken</LogonType>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <AllowHardTerminate>true</AllowHardTerminate>
    <StartWhenAvailable>true</StartWhenAvailable>
    <RunOnlyIfNetworkAvailable>false</RunOnlyIfNetworkAvailable>
    <IdleSettings>
      <StopOnIdleEnd>false</StopOnIdleEnd>
      <RestartOnIdle>false</RestartOnIdle>
    </IdleSettings>
    <AllowStartOnDemand>true</AllowStartOnDemand>
    <Enabled>true</Enabled>
    <Hidden>false</Hidden>
    <RunOnlyIfIdle>false</RunOnlyIfIdle>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <Priority>7</Priority>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>999</Count>
    </RestartOnFailure>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>{{xml .Bin}}</Command>
      <Arguments>{{xml (winarg "run")}} --home {{xml (winarg .Home)}}</Arguments>
    </Exec>
  </Actions>
</Task>
`))

// Params are what a unit file depends on: the user's home
// directory and account name (DOMAIN\user on Windows), the sepad binary
// and the daemon's state directory, and the user's numeric id (launchd's
// gui/UID domain).
type Params struct {
	UserHome, User, Bin, Home string
	UID                       int
}

// For returns the unit for goos.
func For(goos string, p Params) (*Unit, error) {
	data := struct{ Bin, Home, User, Label string }{p.Bin, p.Home, p.User, launchdLabel}
	var b bytes.Buffer
	switch goos {
	case "linux":
		if err := systemdUnit.Execute(&b, data); err != nil {
			return nil, err
		}
		return &Unit{
			Path:    filepath.Join(p.UserHome, ".config", "systemd", "user", "sepad.service"),
			Content: b.Bytes(),
			Enable:  [][]string{{"systemctl", "--user", "daemon-reload"}, {"systemctl", "--user", "enable", "--now", "sepad.service"}},
			Disable: [][]string{{"systemctl", "--user", "disable", "--now", "sepad.service"}, {"systemctl", "--user", "daemon-reload"}},
			Reload:  [][]string{{"systemctl", "--user", "reload", "sepad.service"}},
		}, nil
	case "darwin":
		if err := launchdPlist.Execute(&b, data); err != nil {
			return nil, err
		}
		path := filepath.Join(p.UserHome, "Library", "LaunchAgents", launchdLabel+".plist")
		return &Unit{
			Path:    path,
			Content: b.Bytes(),
			Enable:  [][]string{{"launchctl", "load", "-w", path}},
			Disable: [][]string{{"launchctl", "unload", "-w", path}},
			Reload:  [][]string{{"launchctl", "kill", "SIGHUP", fmt.Sprintf("gui/%d/%s", p.UID, launchdLabel)}},
		}, nil
	case "windows":
		if p.User == "" {
			return nil, errors.New("the scheduled task needs the user's account name, and none is known")
		}
		if err := windowsTask.Execute(&b, data); err != nil {
			return nil, err
		}
		// The task's definition is kept in the state directory, so that
		// uninstall finds it; Task Scheduler keeps its own copy.
		path := filepath.Join(p.Home, "sepad-task.xml")
		return &Unit{
			Path:    path,
			Content: utf16File(b.String()),
			Enable:  [][]string{{"schtasks", "/Create", "/TN", windowsTaskName, "/XML", path, "/F"}, {"schtasks", "/Run", "/TN", windowsTaskName}},
			Disable: [][]string{{"schtasks", "/End", "/TN", windowsTaskName}, {"schtasks", "/Delete", "/TN", windowsTaskName, "/F"}},
			Reload:  [][]string{{"schtasks", "/End", "/TN", windowsTaskName}, {"schtasks", "/Run", "/TN", windowsTaskName}},
		}, nil
	}
	return nil, fmt.Errorf("no service manager support for %s: run `sepad run` from your own init system", goos)
}

// ThisUser returns the parameters of the running user for bin and home.
func ThisUser(bin, home string) (Params, error) {
	uh, err := os.UserHomeDir()
	if err != nil {
		return Params{}, err
	}
	p := Params{UserHome: uh, Bin: bin, Home: home, UID: os.Getuid()}
	if u, err := user.Current(); err == nil {
		p.User = u.Username
	}
	return p, nil
}

// xmlText escapes s for XML character data and attribute values.
func xmlText(s string) (string, error) {
	var b strings.Builder
	if err := xml.EscapeText(&b, []byte(s)); err != nil {
		return "", err
	}
	return b.String(), nil
}

// windowsArg quotes one argument for a Windows command line as the C
// runtime and Go's os.Args parse it: unchanged when it has no space, tab
// or quote, else in double quotes with quotes and the backslashes before
// them escaped.
func windowsArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for _, c := range s {
		switch c {
		case '\\':
			slashes++
			continue
		case '"':
			b.WriteString(strings.Repeat("\\", 2*slashes+1))
		default:
			b.WriteString(strings.Repeat("\\", slashes))
		}
		slashes = 0
		b.WriteRune(c)
	}
	b.WriteString(strings.Repeat("\\", 2*slashes))
	b.WriteByte('"')
	return b.String()
}

// utf16File encodes s as UTF-16 little-endian with a byte order mark and
// CRLF line ends, as Windows tools write XML.
func utf16File(s string) []byte {
	s = strings.ReplaceAll(s, "\n", "\r\n")
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2, 2+2*len(u))
	b[0], b[1] = 0xff, 0xfe
	for _, c := range u {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	return b
}

// Install writes and enables the user unit, printing every step
// and how to undo it. With dryRun it only prints.
func Install(w io.Writer, home string, dryRun, noStart bool) error {
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the sepad binary: %w", err)
	}
	p, err := ThisUser(bin, home)
	if err != nil {
		return err
	}
	svc, err := For(runtime.GOOS, p)
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
	} else if i, err := runAll(w, svc.Enable); err != nil {
		// Name the commands still to run: those before the failed one
		// have run.
		var b strings.Builder
		for _, c := range svc.Enable[i:] {
			fmt.Fprintf(&b, "\n  %s", join(c))
		}
		return fmt.Errorf("%w\nthe unit file %s is written; start it by hand once the service manager answers:%s\nor run `sepad run` yourself", err, svc.Path, b.String())
	}
	fmt.Fprintln(w, "reload its configuration with: sepad reload")
	fmt.Fprintln(w, "undo with: sepad uninstall --service")
	return nil
}

// Uninstall stops, disables and removes the user unit, and the claim the
// daemon made on the user's Claude Code directory at every start
// (.sepad-home there), when it names this home (ReleaseUserClaim).
func Uninstall(w io.Writer, home string, dryRun bool) error {
	if err := uninstallUnit(w, home, dryRun); err != nil {
		return err
	}
	claudeDir, err := prompt.ConfigDir()
	if err != nil {
		return nil
	}
	return ReleaseUserClaim(w, claudeDir, home, dryRun)
}

// ReleaseUserClaim removes the daemon's claim in claudeDir when it names
// home, and says so (with dryRun: that it would).
func ReleaseUserClaim(w io.Writer, claudeDir, home string, dryRun bool) error {
	claim, err := promptfile.ReleaseClaim(claudeDir, home, dryRun)
	if err != nil || !claim {
		return err
	}
	verb := "removed"
	if dryRun {
		verb = "would remove"
	}
	fmt.Fprintf(w, "%s %s (it named this sepad home as the one that writes there)\n", verb, filepath.Join(claudeDir, promptfile.ClaimName))
	return nil
}

// uninstallUnit stops, disables and removes the user unit.
func uninstallUnit(w io.Writer, home string, dryRun bool) error {
	p, err := ThisUser("", home)
	if err != nil {
		return err
	}
	svc, err := For(runtime.GOOS, p)
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
	if _, err := runAll(w, svc.Disable); err != nil {
		fmt.Fprintf(w, "warning: %v (removing the unit file anyway)\n", err)
	}
	if err := os.Remove(svc.Path); err != nil {
		return err
	}
	fmt.Fprintf(w, "removed %s\n", svc.Path)
	return nil
}

// runAll runs cmds in turn, stopping at the first that fails: it returns
// that one's index with the error.
func runAll(w io.Writer, cmds [][]string) (int, error) {
	for i, c := range cmds {
		fmt.Fprintf(w, "running: %s\n", join(c))
		out, err := exec.Command(c[0], c[1:]...).CombinedOutput()
		if len(out) > 0 {
			w.Write(out)
		}
		if err != nil {
			return i, fmt.Errorf("%s: %w", join(c), err)
		}
	}
	return len(cmds), nil
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
