// lecternStem(w): the Porter2 (Snowball English) stem of one lowercase
// word, exactly as Lectern's Go search.Stem gives it. A word shorter than
// 3 letters or holding anything but a-z is returned unchanged. Written
// for Lectern from the published algorithm; ES5, no other global.
function lecternStem(w) {
	if (w.length < 3 || /[^a-z]/.test(w)) {
		return w;
	}
	// Exceptional forms, whole words only.
	var special = /^(?:skis|skies|dying|lying|tying|idly|gently|ugly|early|only|singly|sky|news|howe|atlas|cosmos|bias|andes)$/.exec(w);
	if (special) {
		return {skis: "ski", skies: "sky", dying: "die", lying: "lie", tying: "tie", idly: "idl", gently: "gentl",
			ugly: "ugli", early: "earli", only: "onli", singly: "singl"}[w] || w;
	}

	// isV: is c (one character) a vowel; a consonant y is written Y.
	function isV(c) {
		return "aeiouy".indexOf(c) >= 0;
	}
	// shortv: does s end in a short syllable.
	function shortv(s) {
		var n = s.length;
		if (n === 2) {
			return isV(s.charAt(0)) && !isV(s.charAt(1));
		}
		return n > 2 && !isV(s.charAt(n - 3)) && isV(s.charAt(n - 2)) && "aeiouywxY".indexOf(s.charAt(n - 1)) < 0;
	}
	// after: the end of the first vowel followed by a non-vowel in s
	// at or after from, or the length of s.
	function after(s, from) {
		for (var i = from + 1; i < s.length; i++) {
			if (isV(s.charAt(i - 1)) && !isV(s.charAt(i))) {
				return i + 1;
			}
		}
		return s.length;
	}

	// y at the start or after a vowel is a consonant: Y.
	var s = "", i, c;
	for (i = 0; i < w.length; i++) {
		c = w.charAt(i);
		s += c === "y" && (i === 0 || isV(s.charAt(i - 1))) ? "Y" : c;
	}
	var m = /^(?:gener|commun|arsen)/.exec(s);
	var p1 = m ? m[0].length : after(s, 0);
	var p2 = after(s, p1);

	// A suffix anchored at $ matches at its leftmost start first, so
	// suffix(re) finds the longest suffix of the list re: it sets k to
	// where the suffix starts and returns it, or "".
	var k;
	function suffix(re) {
		var r = re.exec(s);
		k = r ? r.index : s.length;
		return r ? r[0] : "";
	}
	function put(t) {
		s = s.slice(0, k) + t;
	}

	// Step 1a.
	var x = suffix(/(?:sses|ied|ies|us|ss|s)$/);
	if (x === "sses") {
		put("ss");
	} else if (x === "ied" || x === "ies") {
		put(k > 1 ? "i" : "ie");
	} else if (x === "s" && /[aeiouy]/.test(s.slice(0, k - 1))) {
		put("");
	}
	if (/^(?:inning|outing|canning|herring|earring|proceed|exceed|succeed)$/.test(s)) {
		return s;
	}

	// Step 1b.
	x = suffix(/(?:eed|eedly|ed|edly|ing|ingly)$/);
	if (x === "eed" || x === "eedly") {
		if (k >= p1) {
			put("ee");
		}
	} else if (x && /[aeiouy]/.test(s.slice(0, k))) {
		put("");
		if (/(?:at|bl|iz)$/.test(s)) {
			s += "e";
		} else if (/(?:bb|dd|ff|gg|mm|nn|pp|rr|tt)$/.test(s)) {
			s = s.slice(0, -1);
		} else if (p1 >= s.length && shortv(s)) {
			s += "e";
		}
	}

	// Step 1c.
	if (s.length > 2 && /[^aeiouy][yY]$/.test(s)) {
		s = s.slice(0, -1) + "i";
	}

	// Step 2: in R1.
	x = suffix(/(?:tional|enci|anci|abli|entli|izer|ization|ational|ation|ator|alism|aliti|alli|fulness|ousli|ousness|iveness|iviti|biliti|bli|ogi|fulli|lessli|li)$/);
	if (x && k >= p1) {
		if (x === "ogi") {
			if (s.charAt(k - 1) === "l") {
				put("og");
			}
		} else if (x === "li") {
			if ("cdeghkmnrt".indexOf(s.charAt(k - 1)) >= 0) {
				put("");
			}
		} else {
			put({tional: "tion", enci: "ence", anci: "ance", abli: "able", entli: "ent", izer: "ize", ization: "ize",
				ational: "ate", ation: "ate", ator: "ate", alism: "al", aliti: "al", alli: "al", fulness: "ful",
				ousli: "ous", ousness: "ous", iveness: "ive", iviti: "ive", biliti: "ble", bli: "ble", fulli: "ful",
				lessli: "less"}[x]);
		}
	}

	// Step 3: in R1 (ative in R2).
	x = suffix(/(?:tional|ational|alize|icate|iciti|ical|ful|ness|ative)$/);
	if (x && k >= p1 && (x !== "ative" || k >= p2)) {
		put({tional: "tion", ational: "ate", alize: "al", icate: "ic", iciti: "ic", ical: "ic"}[x] || "");
	}

	// Step 4: in R2.
	x = suffix(/(?:al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ism|ate|iti|ous|ive|ize|ion)$/);
	if (x && k >= p2 && (x !== "ion" || /[st]/.test(s.charAt(k - 1)))) {
		put("");
	}

	// Step 5.
	k = s.length - 1;
	c = s.charAt(k);
	if ((c === "e" && (k >= p2 || (k >= p1 && !shortv(s.slice(0, k))))) ||
		(c === "l" && k >= p2 && s.charAt(k - 1) === "l")) {
		put("");
	}
	return s.replace(/Y/g, "y");
}
