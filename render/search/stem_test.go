package search

import (
	"regexp"
	"strings"
	"testing"
)

// TestStemKnown checks Stem against stems the Snowball English
// description gives (its sample vocabulary and the examples of its
// steps) and the algorithm's exceptional forms.
func TestStemKnown(t *testing.T) {
	t.Parallel()
	known := map[string]string{
		// The description's sample vocabulary.
		"consign": "consign", "consigned": "consign", "consigning": "consign", "consignment": "consign",
		"consist": "consist", "consisted": "consist", "consistency": "consist", "consistent": "consist",
		"consistently": "consist", "consisting": "consist", "consists": "consist",
		"consolation": "consol", "consolations": "consol", "consolatory": "consolatori", "console": "consol",
		"consoled": "consol", "consoles": "consol", "consolidate": "consolid", "consolidated": "consolid",
		"consolidating": "consolid", "consoling": "consol", "consolingly": "consol", "consols": "consol",
		"consonant": "conson", "consort": "consort", "consorted": "consort", "consorting": "consort",
		"conspicuous": "conspicu", "conspicuously": "conspicu", "conspiracy": "conspiraci",
		"conspirator": "conspir", "conspirators": "conspir", "conspire": "conspir", "conspired": "conspir",
		"conspiring": "conspir", "constable": "constabl", "constables": "constabl",
		"constance": "constanc", "constancy": "constanc", "constant": "constant",
		"knack": "knack", "knackeries": "knackeri", "knacks": "knack", "knaves": "knave", "knavish": "knavish",
		"kneaded": "knead", "kneading": "knead", "knee": "knee", "kneel": "kneel", "kneeled": "kneel",
		"kneeling": "kneel", "kneels": "kneel", "knees": "knee", "knell": "knell", "knelt": "knelt",
		"knife": "knife", "knight": "knight", "knightly": "knight", "knights": "knight", "knit": "knit",
		"knits": "knit", "knitted": "knit", "knitting": "knit", "knives": "knive", "knocked": "knock",
		"knocker": "knocker", "knockers": "knocker", "knocking": "knock", "knots": "knot",
		// The examples of the steps.
		"generously": "generous", "generate": "generat", "generation": "generat", "communication": "communic",
		"arsenic": "arsenic", "arsenal": "arsenal",
		"caresses": "caress", "ties": "tie", "cries": "cri", "gas": "gas", "this": "this", "gaps": "gap",
		"kiwis": "kiwi", "luxuriated": "luxuri", "hopping": "hop", "hoping": "hope", "cry": "cri", "say": "say",
		// Exceptional forms.
		"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie", "idly": "idl",
		"gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli", "singly": "singl", "sky": "sky",
		"news": "news", "howe": "howe", "atlas": "atlas", "cosmos": "cosmos", "bias": "bias", "andes": "andes",
		"innings": "inning", "outings": "outing", "cannings": "canning", "herrings": "herring",
		"earrings": "earring", "proceeds": "proceed", "exceeds": "exceed", "succeeding": "succeed",
		// Stop words are stemmed too.
		"was": "was", "having": "have", "these": "these", "does": "doe", "being": "be",
	}
	for word, want := range known {
		if got := Stem(word); got != want {
			t.Errorf("Stem(%q) = %q, want %q", word, got, want)
		}
	}
}

// TestStemUnchanged checks that what is not a word of 3 or more ASCII
// lowercase letters comes back as it is.
func TestStemUnchanged(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"", "a", "is", "as", "v2", "mp3s", "running2", "données", "naïvely", "Running",
		"don't", "reader's", "größe", "東京", "running-", "\x00ing", "\xffings"} {
		if got := Stem(w); got != w {
			t.Errorf("Stem(%q) = %q, want it unchanged", w, got)
		}
	}
}

// stemES5Breakers matches syntax newer than ES5.
var stemES5Breakers = regexp.MustCompile("=>|`|\\b(let|const|class|of|async|await|yield|import|export)\\b|\\.\\.\\.|\\?\\?|\\?\\.")

// TestStemJSIsSmallES5 checks that StemJS is the function lecternStem,
// written without syntax newer than ES5 (comments aside), and small.
func TestStemJSIsSmallES5(t *testing.T) {
	t.Parallel()
	if !strings.HasPrefix(stemJSCode(StemJS), "function lecternStem(w) {") {
		t.Errorf("stem.js does not start with the declaration of lecternStem")
	}
	for i, line := range strings.Split(StemJS, "\n") {
		if m := stemES5Breakers.FindString(stemJSCode(line)); m != "" {
			t.Errorf("stem.js:%d: %q is not ES5: %s", i+1, m, line)
		}
	}
	if len(StemJS) > 8<<10 {
		t.Errorf("stem.js is %d bytes: readers download it", len(StemJS))
	}
}

// stemJSCode returns js without its // comments (stem.js has no other kind,
// and no // inside strings or regular expressions).
func stemJSCode(js string) string {
	var b strings.Builder
	for line := range strings.Lines(js) {
		code, _, _ := strings.Cut(line, "//")
		if strings.TrimSpace(code) != "" {
			b.WriteString(code)
			b.WriteString("\n")
		}
	}
	return b.String()
}
