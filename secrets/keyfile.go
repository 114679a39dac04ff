package secrets

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// MaxKeyFile bounds what ReadKeyFile reads.
const MaxKeyFile = 4 << 10

// ReadKeyFile reads a file holding a key (an API key, a model's key): one
// line, surrounding space trimmed, at most MaxKeyFile bytes. Its errors
// name the file, never its content; a file that cannot be opened is the
// *fs.PathError of os.Open.
func ReadKeyFile(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxKeyFile+1))
	if err != nil {
		return "", err
	}
	key := strings.TrimSpace(string(data))
	switch {
	case len(data) > MaxKeyFile:
		return "", fmt.Errorf("%s is larger than a key file can be", path)
	case key == "":
		return "", fmt.Errorf("%s is empty", path)
	case strings.ContainsAny(key, " \t\r\n"):
		return "", fmt.Errorf("%s must hold the key alone, on one line", path)
	}
	return key, nil
}
