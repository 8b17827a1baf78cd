package sandbox

import "strings"

// networkErrors are what common tools print when there is no network at all. Inside
// a network namespace only an empty loopback exists, so a name lookup fails and a
// connection to 127.0.0.1 is refused.
var networkErrors = []string{
	"Network is unreachable",
	"Temporary failure in name resolution",
	"Could not resolve host",
	"Name or service not known",
	"No address associated with hostname",
	"Connection refused",
	"server misbehaving",
	"Failed to establish a new connection",
	"getaddrinfo",
	"unable to access 'http",
	"connect: Permission denied", // Landlock's answer to a TCP connect, before the namespace's
	"Failed to connect",
	"Couldn't connect to server",
}

// Explain returns one line saying what the sandbox blocked, judged from a confined
// command's output, or "" when nothing in it points at the sandbox. The command's
// own error stays in its output; this line only tells the model the cause and how
// to ask for more, so it does not retry blindly.
func (s *Sandbox) Explain(output string, o Options) string {
	var why []string
	if strings.Contains(output, "Read-only file system") {
		why = append(why, "the file system outside "+o.Dir+" and /tmp is read-only")
	}
	if !o.Network && containsAny(output, networkErrors) {
		why = append(why, "there is no network (run the command again with \"network\": true to ask the person for it)")
	}
	if s.mentionsHome(output, o.Dir) &&
		containsAny(output, []string{"No such file or directory", "not found", "does not exist"}) {
		why = append(why, "the home folder "+s.home+" is an empty, private one inside the sandbox")
	}
	if len(why) == 0 {
		return ""
	}
	return "[sandbox: this command ran in the sandbox, where " + strings.Join(why, "; ") +
		". If it needs more, ask the person (\"unsandboxed\": true runs it outside the sandbox once approved).]"
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// mentionsHome reports whether output names a path in the hidden home other than
// the folder (which stays visible when it lies inside home).
func (s *Sandbox) mentionsHome(output, dir string) bool {
	if s.home == "" {
		return false
	}
	for i := strings.Index(output, s.home); i >= 0; {
		if !strings.HasPrefix(output[i:], dir) {
			return true
		}
		next := strings.Index(output[i+1:], s.home)
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}
