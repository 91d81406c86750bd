package execution

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// Command kinds of a Bash call (ToolCall.Kind), read from its command
// when the call starts; the integrity track (package integrity) compares
// what the final answer claims with how the last call of a kind ended.
const (
	KindTest   = "test"
	KindBuild  = "build"
	KindDeploy = "deploy"
)

// kindPatterns are tried in order on each command of a Bash call (split
// on &&, ||, ; and |); the last command that matches decides. The lists
// are in docs/integrity.md.
var kindPatterns = sync.OnceValue(func() []struct {
	kind string
	re   *regexp.Regexp
} {
	return []struct {
		kind string
		re   *regexp.Regexp
	}{
		{KindTest, regexp.MustCompile(`(?i)(^|\s|/)(go test|pytest|py\.test|python3? -m (pytest|unittest)|npm (run )?test|yarn test|pnpm (run )?test|bun test|npx (jest|vitest|mocha|playwright test)|jest|vitest|mocha|cargo (test|nextest)|make (test|check)\b|mvn( -\S+)* (test|verify)|gradlew? test|rspec|bundle exec (rspec|rake test)|phpunit|ctest|tox\b|dotnet test|mix test|swift test|deno test)`)},
		{KindDeploy, regexp.MustCompile(`(?i)(^|\s|/)(make deploy|kubectl (apply|rollout)|helm (upgrade|install)|terraform apply|fly deploy|vercel( --prod|\s+deploy)|netlify deploy|gcloud (app|run) deploy|aws (deploy|cloudformation deploy)|serverless deploy|sls deploy|cap \S+ deploy|npm run deploy|\S*deploy\S*\.sh)`)},
		{KindBuild, regexp.MustCompile(`(?i)(^|\s|/)(go (build|vet)|cargo (build|check)|make\b(\s+(all|build))?\s*$|npm run build|yarn build|pnpm (run )?build|tsc\b|mvn( -\S+)* (package|compile)|gradlew? build|cmake --build|dotnet build|swift build)`)},
	}
})

var cmdSplit = regexp.MustCompile(`&&|\|\||;|\|`)

// CommandKind classifies one tool call: test, build or deploy for a Bash
// command that runs one, else "".
func CommandKind(tool string, input json.RawMessage) string {
	return commandKind(bashInput(tool, input))
}

// bashInput is a Bash call's command as its input gives it; "" for other
// tools and for an input without one.
func bashInput(tool string, input json.RawMessage) string {
	if tool != "Bash" || len(input) == 0 {
		return ""
	}
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	return in.Command
}

// commandKind is CommandKind of a command already read from its input.
func commandKind(cmd string) string {
	if cmd == "" {
		return ""
	}
	if len(cmd) > 4096 {
		cmd = cmd[:4096]
	}
	kind := ""
	for _, part := range cmdSplit.Split(cmd, -1) {
		part = strings.TrimSpace(part)
		for _, p := range kindPatterns() {
			if p.re.MatchString(part) {
				kind = p.kind
				break
			}
		}
	}
	return kind
}
