package cli_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lectern.dev/lectern/cli"
)

// TestServeAssistantSettingsRefused: bad model settings stop serve at
// once with a message naming the setting, and never repeat the key.
func TestServeAssistantSettingsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	multi := filepath.Join(dir, "multi.key")
	os.WriteFile(multi, []byte("sk-part one\nsk-part two\n"), 0o600)
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"model without URL": {[]string{"--assistant-llm-model", "m"}, "need --assistant-llm-url"},
		"URL without model": {[]string{"--assistant-llm-url", "http://vllm.test/v1"}, "--assistant-llm-url needs --assistant-llm-model"},
		"not http":          {[]string{"--assistant-llm-url", "ftp://vllm.test/v1", "--assistant-llm-model", "m"}, "--assistant-llm-url must be an http:// or https:// URL"},
		"password in URL":   {[]string{"--assistant-llm-url", "http://u:sk-secret@vllm.test/v1", "--assistant-llm-model", "m"}, "must not hold a user or password"},
		"missing key file":  {[]string{"--assistant-llm-url", "http://vllm.test/v1", "--assistant-llm-model", "m", "--assistant-llm-key-file", filepath.Join(dir, "none")}, "--assistant-llm-key-file: open"},
		"key file of lines": {[]string{"--assistant-llm-url", "http://vllm.test/v1", "--assistant-llm-model", "m", "--assistant-llm-key-file", multi}, "must hold the key alone"},
	} {
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir()}, c.args...)
		err := cli.Run(context.Background(), args, noEnv, strings.NewReader(""), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
		if err != nil && (strings.Contains(err.Error(), "sk-secret") || strings.Contains(err.Error(), "sk-part")) {
			t.Errorf("%s: the error repeats the key: %v", name, err)
		}
	}
}
