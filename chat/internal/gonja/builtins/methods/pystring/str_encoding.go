package pystring

import (
	"fmt"

	"github.com/webgguf/webgguf/chat/internal/gonja/builtins/methods/pyerrors"
)

// Encode returns the string encoded to bytes.
// encoding defaults to 'utf-8'; see Standard Encodings for possible values.
// errors controls how encoding errors are handled. If 'strict' (the default), a UnicodeError exception is raised. Other possible values are 'ignore', 'replace', 'xmlcharrefreplace', 'backslashreplace' and any other name registered via codecs.register_error(). See Error Handlers for details.
// For performance reasons, the value of errors is not checked for validity unless an encoding error actually occurs, Python Development Mode is enabled or a debug build is used.
func Encode(str, encoding, errors string) ([]byte, error) {
	switch encoding {
	case "utf-8", "utf_8", "U8", "UTF", "utf8", "cp65001": // UTF-8 and its aliases
		return []byte(str), nil
	case "latin_1", "iso-8859-1", "iso8859-1", "8859", "cp819", "latin", "latin1", "L1": // ISO-8859-1 and its aliases
		// webgguf patch: ISO-8859-1 is the first 256 code points, so no
		// charmap table is needed.
		result := make([]byte, 0, len(str))
		for _, r := range str {
			if r > 0xff {
				if errors == "strict" {
					return nil, fmt.Errorf("failed to encode %s to ISO-8859-1: rune %U out of range", str, r)
				}
				continue
			}
			result = append(result, byte(r))
		}
		return result, nil
	default:
		return nil, fmt.Errorf("%w: unsupported encoding '%s'", pyerrors.ErrArguments, encoding)
	}
}

// Encode returns the string encoded to bytes.
// encoding defaults to 'utf-8'; see Standard Encodings for possible values.
// errors controls how encoding errors are handled. If 'strict' (the default), a UnicodeError exception is raised. Other possible values are 'ignore', 'replace', 'xmlcharrefreplace', 'backslashreplace' and any other name registered via codecs.register_error(). See Error Handlers for details.
// For performance reasons, the value of errors is not checked for validity unless an encoding error actually occurs, Python Development Mode is enabled or a debug build is used.
func (pys PyString) Encode(encoding string, errors string) ([]byte, error) {
	return Encode(string(pys), encoding, errors)
}
