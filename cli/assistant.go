package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"lectern.dev/lectern"
	"lectern.dev/lectern/assistant"
	"lectern.dev/lectern/secrets"
)

// assistantKeyEnv holds the model endpoint's key, when not in a file.
const assistantKeyEnv = "LECTERN_ASSISTANT_LLM_KEY"

// assistantFlags are serve's settings of the cloud sites' AI assistant.
type assistantFlags struct {
	llmURL     string
	llmModel   string
	llmKeyFile string
	llmTimeout time.Duration
	llmStreams int
	retention  time.Duration
}

func (f *assistantFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.llmURL, "assistant-llm-url", "", "an OpenAI-compatible chat-completions API (vLLM, Ollama: http://ollama.internal:11434/v1) whose model writes the assistant's answers from the passages found; default none: answers quote the docs")
	fs.StringVar(&f.llmModel, "assistant-llm-model", "", "the model of --assistant-llm-url that writes the answers (required with it)")
	fs.StringVar(&f.llmKeyFile, "assistant-llm-key-file", "", "a file holding the key of --assistant-llm-url, sent as a bearer token; or put the key in "+assistantKeyEnv)
	fs.DurationVar(&f.retention, "assistant-retention", 90*24*time.Hour, "how long the questions asked to the sites' assistants, their answers and the readers' ratings are kept")
	fs.IntVar(&f.llmStreams, "assistant-llm-concurrency", 16, "answers the model may write at once, all sites together (4 at most per project); beyond, answers quote the docs")
	fs.DurationVar(&f.llmTimeout, "assistant-llm-timeout", 2*time.Minute, "how long the model may take to write an answer before the quoted answer is given instead")
}

// service returns the assistant of the live sites: extractive without a
// model URL, model-written with one. No error repeats the key.
func (f *assistantFlags) service(getenv func(string) string, log *slog.Logger) (*assistant.Service, error) {
	svc := &assistant.Service{Log: log}
	url, model := strings.TrimSpace(f.llmURL), strings.TrimSpace(f.llmModel)
	switch {
	case f.retention < time.Hour:
		return nil, fmt.Errorf("--assistant-retention %s is shorter than an hour", f.retention)
	case url == "" && model == "" && f.llmKeyFile == "":
		log.Info("assistant: cloud sites' answers quote their docs (no --assistant-llm-url)")
		return svc, nil
	case url == "":
		return nil, fmt.Errorf("--assistant-llm-model and --assistant-llm-key-file need --assistant-llm-url, the model's OpenAI-compatible API")
	case model == "":
		return nil, fmt.Errorf("--assistant-llm-url needs --assistant-llm-model, the name of the model that writes the answers")
	case f.llmStreams < 1 || f.llmStreams > 10_000:
		return nil, fmt.Errorf("--assistant-llm-concurrency %d: give 1 to 10000", f.llmStreams)
	case f.llmTimeout < time.Second:
		return nil, fmt.Errorf("--assistant-llm-timeout %s is shorter than a second", f.llmTimeout)
	}
	if _, err := assistant.ParseModelURL(url); err != nil {
		return nil, fmt.Errorf("--assistant-llm-url %s", err)
	}
	key := strings.TrimSpace(getenv(assistantKeyEnv))
	if f.llmKeyFile != "" {
		k, err := readSecretFile("--assistant-llm-key-file", f.llmKeyFile)
		if err != nil {
			return nil, err
		}
		key = k
	}
	svc.Model = &assistant.Model{URL: url, Name: model, Key: key, Timeout: f.llmTimeout}
	svc.MaxStreams = f.llmStreams
	log.Info("assistant: a model writes cloud sites' answers", "url", lectern.RedactURL(url), "model", model, "key", key != "")
	return svc, nil
}

// readSecretFile reads a key file named by flag (secrets.ReadKeyFile),
// its errors prefixed with the flag.
func readSecretFile(flag, path string) (string, error) {
	key, err := secrets.ReadKeyFile(path)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return "", fmt.Errorf("%s: %w", flag, err)
	case err != nil:
		return "", fmt.Errorf("%s %w", flag, err)
	}
	return key, nil
}
