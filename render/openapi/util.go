package openapi

import "unicode"

func isLetter(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
