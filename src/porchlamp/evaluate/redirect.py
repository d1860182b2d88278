"""Where a comment or a project document says review happens instead of on this repository's PRs
(SPEC section 6): read sentence by sentence, as a person reads it, not matched against whole phrases.

A text is a redirect when one of its sentences refuses PRs here ("we don't take pull requests via
GitHub"), says this repository is a mirror ("this is only a read-only mirror"), sends the author to a
review venue ("please submit it to Gerrit"), or says the project reviews there ("gitg uses GitLab for
code review"). It is not when the text welcomes PRs here ("PRs here are fine"), points a change at a
different project (vendored code, "fix it upstream in X"), only mentions a venue (discussion on a
list, "no need to put this in Phabricator"), asks a question, or quotes someone in passing.

The grammar is a handful of small regular expressions over one sentence at a time: negation, what is
refused (PRs, patches, contributions), where (here, on GitHub), the mirror statement, the directive
verbs and the venues. Built from the wording kinds named in SPEC section 6 and measured on the real
comments of tests/data/redirect_comments.csv (docs/DECISIONS.md), whose held-out third it never saw.
Pure and fast: a prefilter sends only texts naming a PR, a mirror or a venue to the sentence reader.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# Raise when what the reader recognises changes: stored marks are then recomputed (evaluate.marks).
READER_VERSION = 4

# Where review happens, as a page names it ("review happens on Gerrit"); "other" is a place the text
# names without a known tool, or none ("elsewhere": PRs are just not taken here).
VENUE_NAMES = {
    "mailing_list": "a mailing list", "gerrit": "Gerrit", "phabricator": "Phabricator", "bugzilla": "Bugzilla",
    "jira": "JIRA", "gitlab": "GitLab", "forgejo": "Codeberg/Forgejo", "sourcehut": "sourcehut",
    "savannah": "Savannah", "trac": "Trac", "other": "elsewhere",
}
VENUES = tuple(VENUE_NAMES)


class Redirect(NamedTuple):
    venue: str  # one of VENUES
    link: str | None  # the address or link it names, if any
    sentence: str  # the sentence that says so, on one line
    why: str  # refusal, mirror, directive or process: what the sentence does


class Reading(NamedTuple):
    redirect: Redirect | None
    welcomes: bool  # says PRs here are fine: a later one from a maintainer withdraws a redirect


NONE = Reading(None, False)

_I = re.IGNORECASE  # only for addresses: every other pattern reads the lower-cased sentence

# Only texts that name a venue or a mirror, or refuse PRs, are read sentence by sentence: plain
# substring tests on the lower-cased text, so the common comment costs a few microseconds.
_PLACES = ("mirror", "read-only", "read only", "readonly", "gerrit", "googlesource", "codereview", "phabricator",
           "differential", "arcanist", "arc diff", "moz-phab", "bugzilla", "bugs.", "bug tracker", "bugtracker", "jira", "gitlab",
           "merge request", "codeberg", "forgejo", "gitea", "sourcehut", "sr.ht", "savannah", "trac", "mailing",
           "send-email", "format-patch", "gitgitgadget", "-devel", "-patches", "tech@", "review server", "review system",
           "review board", "reviewboard", "launchpad", "pagure", "sourceforge", "svn", "subversion", "mercurial",
           "upstream", "synced", "exported", "internal", "private", "ticket", "mail", "patch", "only used", "development")
_NEGATIONS = (" not ", "not.", "n't", "n’t", "never", "nobody", "no one", "cannot", "no longer", "ignored", "closed", "refuse",
              "disabled", "waste", "please no", "stop ", "nowhere", "overwrite", "pointless", "useless", "futile")
_OBJECTS = ("pull", "pr", "contribut", "github", "change")


_DIRECTIONS = ("please", "instead", "should", "must", "submit", "send", "upload", "open a", "use ")
_WELCOMES = ("fine", "welcome", "too", "accept", "allow", "encourag", "feel free", "ok", "anyway", "any way")


def _worth_reading(low: str) -> bool:
    """Whether a lower-cased text could say anything the reader looks for (no false negatives)."""
    if _any(low, _PLACES):
        return True
    if _any(low, _NEGATIONS) and _any(low, _OBJECTS):
        return True
    if ("http" in low or "@" in low or "www." in low) and _any(low, _DIRECTIONS):
        return True
    return ("pull" in low or "pr" in low) and _any(low, _WELCOMES)


# -- what a sentence is about ----------------------------------------------------------------

_NEG = r"(?:\bnot\b|n't\b|n’t\b|\bnever\b|\bno longer\b|\bcannot\b|\bunable to\b|\bnobody\b|\bno one\b)"
# What is refused: PRs and their kin, never one particular PR ("your patch" is that PR's fate).
_PRS = (r"(?:(?:github|gh|external|outside)\s+)?(?:pull[\s-]?requests?|\bprs?\b|\bpr's\b|patches|\bpatch\b|"
        r"contributions|changes|merge requests?|submissions)")
_ACCEPT = (r"(?:accept\w*|tak(?:e|es|ing)|us(?:e|es|ed|ing)|merg\w*|process\w*|review\w*|handl\w*|support\w*|"
           r"look(?:ing)? at|check\w*|monitor\w*|allow\w*|land\w*|rel(?:y|ies) on|deal with|answer to|respond to|"
           r"consider\w*|figure\w*|do|read\w*|watch\w*)")
_HERE = r"(?:here|github|this repo|this repository|this mirror|the mirror|our mirror)"

_REFUSALS = [
    # "we do not accept pull requests", "qemu doesn't accept patches via github pull request",
    # "I don't think anyone checks GitHub PRs", "developers are not looking at pull requests"
    re.compile(_NEG + r"\s+(?:[\w'’-]+\s+){0,4}?" + _ACCEPT + r"\s+(?:(?:the|any|new|more|external|outside)\s+)?"
               + _PRS),
    # "pull requests are not accepted", "patches aren't accepted here"
    re.compile(_PRS + r"\s+(?:[\w'’-]+\s+){0,5}?(?:are|is|will be|can be|get|can|will|would)\s*"
               r"(?:not|n't|n’t|never)\s+(?:be\s+)?(?:\w+\s+)?(?:accepted|merged|reviewed|looked at|monitored|supported|"
               r"processed|used|considered|read|land|handled|seen|watched|noticed)"),
    # "pull requests are, unfortunately, ignored", "PRs proposed on GitHub are automatically closed"
    re.compile(_PRS + r"\s+(?:[\w'’,-]+\s+){0,5}?(?:are|is|will be|get|got|being|should be avoided because)\s+"
               r"(?:[\w,]+\s+){0,4}?(?:ignored|auto(?:matically)?[\s-]closed|closed automatically|disabled|rejected|"
               r"unsupported|unmonitored|discarded|disallowed|a waste of time)"),
    # "nothing will be accepted here", "no contributions will be accepted here"
    re.compile(r"\b(?:nothing|no\s+\w+)\s+(?:will be|is|are|can be)\s+(?:accepted|merged|reviewed|taken)\s+here"),
    # "Please do not submit a Pull Request via github", "please do not file PRs here", "Please no pull requests"
    re.compile(r"(?:\bdo not|\bdon't|\bplease no|\bplease,? do not|\bstop)\s+(?:\w+ly\s+)?"
               r"(?:(?:submit|send|open|file|make|create)\w*\s+)?(?:an?\s+|any\s+|us\s+)?(?:github\s+)?"
               r"(?:pull[\s-]?requests?|\bprs?\b)"),
    # "Sending pull requests here is a waste of time"
    re.compile(r"(?:sending|opening|submitting|filing)\s+(?:pull requests|prs|patches)\s+here\s+is\s+(?:a waste|pointless|useless)"),
    # "we can't accept contributions through Github", "can't really handle PRs"
    re.compile(r"(?:can't|can’t|cannot|can not|unable to)\s+(?:really\s+|actually\s+)?(?:accept|take|merge|handle|land)\s+"
               r"(?!(?:this|your|my|his|her)\b)(?:\w+\s+){0,2}?" + _PRS),
    # "Qt doesn't use GitHub", "the Git community does not use github.com for their contributions",
    # "This repository doesn't rely on github PRs", "GitHub does not figure in our process"
    re.compile(r"(?:doesn't|doesn’t|does not|don't|don’t|do not)\s+(?:currently\s+)?(?:use|rely on)\s+github"),
    re.compile(r"github\s+(?:does not|doesn't|doesn’t)\s+figure"),
    # "Linus refuses to use GitHub", "the maintainers refuse to take pull requests"
    re.compile(r"\brefus(?:e|es|ed|ing)\s+to\s+(?:use|accept|take|look at|touch)\s+(?:github|(?:github\s+)?(?:pull requests|prs))\b"),
    re.compile(r"(?:are not|aren't|is not|isn't)\s+part of (?:our|the)\s+(?:\w+\s+)?(?:review\s+)?process"),
    re.compile(r"(?:isn't|is not|wasn't)\s+used\s+for\s+(?:accepting\s+)?(?:contributions|development|pull requests)"),
    re.compile(r"\bnot\s+used\s+for\s+(?:\w+\s+)?development\b"),
    # "Maintainers are not tracking this mirror", "nobody watches this repository"
    re.compile(_NEG + r"\s+(?:[\w'’-]+\s+){0,2}?(?:track|monitor|watch|check|read|look(?:ing)? at|follow)\w*\s+"
               r"(?:this|the|our)\s+(?:github\s+)?(?:mirror|repo|repository)\b"),
    re.compile(r"\b(?:repo|repository|mirror|github)\s+is\s+not\s+(?:monitored|watched|tracked|read|checked)\b"),
    # "Linus does not pull from GitHub", "we don't take anything via GitHub"; not how a merge is done
    # ("I don't merge via GitHub, I rebase locally" still takes the PR)
    re.compile(_NEG + r"\s+(?:[\w'’-]+\s+){0,2}?(?:pull|accept|tak|review)\w*\s+(?:anything\s+|changes\s+|code\s+|patches\s+)?"
               r"(?:from|via|through|over|on)\s+github\b"),
    # "posting a contribution for a non-GitHub project on GitHub is not going to work"
    re.compile(r"\b(?:sending|opening|submitting|filing|posting|making)\s+(?:[\w'’-]+\s+){0,7}?(?:here|on github|to github|via github|"
               r"on this repo\w*|to this repo\w*)\s+(?:is|will be|would be)\s+(?:not going to work|pointless|useless|futile|a waste)"),
    # "a pull request opened against this repository has nowhere to land"
    re.compile(_PRS + r"\s+(?:[\w'’,-]+\s+){0,6}?(?:has|have)\s+nowhere\s+to\s+(?:land|go)\b"),
    # "changes made here will be overwritten by the next sync", "the next sync would overwrite it"
    re.compile(r"\b(?:next|nightly|automatic|daily)\s+(?:sync|export|import|update)\s+(?:would|will)\s+overwrite\b"),
    re.compile(r"\b(?:changes|commits|edits)\s+(?:made\s+|pushed\s+)?here\s+(?:will|would)\s+be\s+(?:overwritten|lost|discarded)"),
]
# A refusal narrowed to part of the project says less (React's "we don't accept pull requests to them
# directly", of stable branches); a hedge ("does not mention whether...") says nothing.
_NEG_RX = re.compile(_NEG)
_NARROWED = re.compile(r"\bbranch|\bto them\b|\bunless\b|\bwithout\b|\bthat don't\b|\bthat do not\b|\bbefore you\b|"
                       r"\bfirst open\b|\bfor typos?\b|\btrivial\b|\blarge pull requests\b|\bnew features\b|"
                       r"\bof (?:this|that) (?:type|kind|sort)\b|\b(?:these|those|such) (?:kinds?|types?|sorts?) of\b|\bthis kind of\b")
# A mailing list to discuss or announce on (first): not where the change goes (SPEC 6).
_DISCUSSION = re.compile(r"\bdiscuss\w*|\bannounc\w*|\bpost about\b|\bfirst\b")
# The same maintainers take such changes another way: "we instead batch these kinds of changes into an
# occasional cleanup by the editors". Not a venue: with no place named, not a redirect (SPEC 6).
_BATCHED = re.compile(r"\bbatch(?:es|ed|ing)?\b[^.;!?]{0,80}\b(?:changes|fixes|prs|pull requests|them|these|into)\b|"
                      r"\bcleanup (?:commit|pr|pull request)s?\b|\boccasional cleanup\b")
# What is refused is one PR, not PRs: "did not actually merge the PR" is that PR's fate.
_ONE_PR = re.compile(r"\b(?:the|this|your|my|his|her|that)\s+(?:pull[\s-]?request|pr|patch|changes?|contribution|submission|"
                     r"merge request)$")
# ...or named just before the refusal: "the PR is not ready for review or to be merged" is that PR's state.
_ONE_PR_BEFORE = re.compile(r"\b(?:the|this|your|my|his|her|that)\s+$")
_SINGULAR = re.compile(r"(?:pull[\s-]?request|pr|patch|change|submission)\b")
_HEDGE = re.compile(r"\b(?:whether|mention|wonder|if this|if the|suggest(?:ion)? that|not sure if)\b")

# "this repository is only a read-only mirror", "It's a one way mirror", "this is unofficial
# unmonitored mirror", "The repository at GitHub is only a mirror", "This repo is mirror-only".
_SUBJECT = r"(?:\bthis\b|\bit\b|\bthat\b|\bgithub\b|\brepo\.?|\brepository\b|\bhere\b|\bcopy\b|\bpresence\b|[\w-]+/[\w.-]+)"
_MIRRORS = [
    re.compile(_SUBJECT + r"(?:\s+[\w.@()-]+){0,4}?\s+(?:is|'s|’s)\s+(?:[\w()’',-]+\s+){0,5}?"
               r"(?:mirror|conversion|export)(?:\s+only)?\b(?!\s+(?:script|setup|job|workflow|url))"),
    re.compile(r"\bmirror[\s-]only\b|\bone[\s-]way\s+mirror\b|\bread[\s-]only\s+(?:mirror|copy|conversion|repo|repository)\b"),
    re.compile(r"\b(?:repo|repository)\s+(?:is|are)\s+(?:\w+\s+)?read[\s-]?only\b"),
    re.compile(r"\bmirror\s+(?:there\s+)?is\s+(?:\w+\s+)?(?:unofficial|unmonitored|read[\s-]only)"),
    # "This mirror is not managed by the wine team"
    re.compile(r"\b(?:this|the|our)\s+(?:github\s+)?mirror\s+is\s+(?:not|n't)\s+(?:\w+\s+)?(?:managed|maintained|run|operated|"
               r"owned|official|monitored|watched)\b"),
    # "This repository is automatically synced from our internal one", "is mirrored from https://..."
    re.compile(_SUBJECT + r"\s+(?:is|are)\s+(?:\w+\s+)?(?:mirrored|synced|synchronized|exported|copied|generated)\s+from\b"),
    # "GitHub is only used for CI", "the GitHub repo is not the main one"
    re.compile(_SUBJECT + r"\s+is\s+(?:only|just|merely)\s+used\s+(?:for|as|to)\s+(?:ci|hosting|host|backup|distribution|"
               r"distribute|a backup|testing|publish|releases|storage|store)\b"),
    re.compile(r"\b(?:repo|repository|github(?:\s+repo)?)\s+is\s+(?:[\w()-]+\s+){0,3}?(?:copy|clone|snapshot)\b"),
    re.compile(_SUBJECT + r"\.?\s+is\s+not\s+the\s+(?:main|official|canonical|primary|real|development|upstream)\s+"
               r"(?:repo|repository|one|source|home)\b"),
]

# -- where a sentence sends the author ----------------------------------------------------------

_URL = re.compile(r"https?://[^\s)>\]\"'`]+|\b(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:org|com|net|io|de|ht|us|eu)"
                  r"(?:/[^\s)>\]\"'`]*)?", _I)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b[\w.-]+ at [\w-]+ dot [\w-]+(?: dot [\w-]+)*", _I)
# Venue words, most specific first; the address they name decides over the words.
_VENUE_WORDS = [
    ("gerrit", re.compile(r"\bgerrit|googlesource|\bcodereview\b|review\.opendev|\bgit cl upload\b")),
    ("phabricator", re.compile(r"phabricator|\bdifferential\b|\barcanist\b|\barc diff\b|\bmoz-phab\b")),
    ("gitlab", re.compile(r"\bgitlab\b|\bmerge requests?\b")),
    ("forgejo", re.compile(r"\bcodeberg|\bforgejo\b|\bgitea\b")),
    ("sourcehut", re.compile(r"sourcehut|\bsr\.ht\b")),
    ("savannah", re.compile(r"\bsavannah\b")),
    ("trac", re.compile(r"\btrac\b|newticket")),
    ("jira", re.compile(r"\bjira\b")),
    ("bugzilla", re.compile(r"bugzilla|\bbug ?trackers?\b|\bbug report\b|\bfile a bug\b|\bbugs\.[\w.-]+")),
    ("mailing_list", re.compile(r"mailing[\s-]?lists?|\bml\b|\bsend-email\b|\bformat-patch\b|\bgitgitgadget\b|"
                                r"\b(?:e-?)?mail(?:ing|ed)? (?:the )?patch|\bpatch(?:es)? (?:via|by|as|in|over|through) (?:e-?)?mail|"
                                r"\bplain[\s-]text (?:e-?)?mail|\b[\w-]+-(?:devel|patches|dev|hackers|technical)\b|\btech@")),
    ("other", re.compile(r"\breview (?:server|system|site|tool)\b|\bcode review\b|\bsourceforge\b|\blaunchpad\b|"
                         r"\bpagure\b|\breview ?board\b|\bmercurial\b|\bsubversion\b|\bsvn\b|\bour own\b|"
                         r"\b(?:real|official|actual|canonical|main|primary)\s+(?:git\s+)?(?:repo|repository|repositories)\b|"
                         r"\b(?:private|internal)\s+(?:source\s+)?(?:tree|repo|repository|monorepo)\b|"
                         r"\bofficial\s+\w+\s+channels?\b|\bproper channel\b|\bticket\b|\bwiki\b")),
]
_HOSTS = [("gerrit", ("gerrit", "googlesource", "review.", "codereview.", "cr.")),
          ("phabricator", ("phabricator", "phab.", "reviews.")),
          ("gitlab", ("gitlab",)), ("forgejo", ("codeberg", "gitea", "forgejo")), ("sourcehut", ("sr.ht",)),
          ("savannah", ("savannah",)), ("jira", ("jira", "issues.apache.org")),
          ("bugzilla", ("bugzilla", "bugs.", "bz.", "show_bug")), ("mailing_list", ("lists.", "mailman", "inbox.", "gitgitgadget"))]
_LIST_MAILBOX = re.compile(r"list|devel|patches|tech|discuss|hackers|dev\b|-dev|users")

# A direction: imperative, a polite request, an obligation, or "the proper way is".
_VERBS = (r"(?:re-?)?(?:submit|send|post|upload|open|file|create|push|propose|use|make|redo|direct|attach|go through|"
          r"summit|contribute|e-?mail|mail|report|move|bring|follow|consider|head over|go|visit|raise|take)")
# A suggestion in the first person directs the reader: "I'd recommend that you push these to Gerrit".
_SUGGEST = r"i(?: would|'d)? (?:strongly )?(?:suggest|recommend|advise)"
_DIRECT = re.compile(
    r"(?:(?:^[-*•]?\s*|[,;:(–—•]\s*|\s[-*]\s+|\binstead,?\s+|\bthen\s+)" + _VERBS + r"\b|"
    r"(?:\bplease,?\s+(?:\w+\s+)?|\bkindly\s+|"
    r"\byou\s+(?:will\s+|would\s+|'ll\s+|may\s+|might\s+)?(?:need to|must|should|have to|can|could|want to)\s+(?:\w+\s+)?|"
    r"\b(?:can|could|would|will)\s+you\s+(?:please\s+)?|\bhopefully you can\s+|\bare you able to\s+|"
    r"\b" + _SUGGEST + r"(?: that)?(?: you)?(?: to)?\s+|\bit'?s best to\s+)"
    + _VERBS + r"(?:s|ing|ting|ing)?\b|\b(?:suggest|recommend)\s+using\b)")
# Directions that read as such only when the sentence is addressed to the reader (_ADDRESSED):
# "please split the change ... and send them to the mailing list", "if you're not willing to upload
# your change for review with Gerrit"; "they send the patches to the list after review" is a report.
_DIRECT_ADDRESSED = re.compile(
    r"\band\s+(?:then\s+)?" + _VERBS + r"\b|"
    r"\b(?:re-?)?(?:upload|submit|send|post|push|propose)\w*\s+(?:your|the|this|these|those|them|it|a|an)\s+(?:\w+\s+)?"
    r"(?:changes?|patch(?:es)?|commits?|fix(?:es)?|diffs?|cls?|prs?|pull requests?)?\s*(?:for review\s+)?(?:to|on|via|with|through|at|in)\b")
_ADDRESSED = re.compile(r"^\W*(?:please\b|kindly\b|" + _VERBS + r"\b)|\byou(?:'re|r|'ll)?\b")
_OBLIGED = re.compile(
    r"(?:should|must|need to|needs to|has to|have to|ought to|are to|is to)\s+(?:\w+\s+)?(?:be|go)\s+(?:\w+\s+)?"
    r"(?:submitted|sent|posted|made|filed|uploaded|proposed|applied|through|to\b|via\b|on\b)|"
    r"\b(?:proper|official|right|correct|only|preferred|the)\s+(?:way|channel|road|place|route)\s+(?:to\s+\w+\s+)?"
    r"(?:\w+\s+){0,4}?(?:is|are)\b|\bis best\b|\bpossible only via\b|\bonly via\b")
# What is directed must be a change, unless the venue is itself a review tool ("you should use Gerrit").
_CHANGE = re.compile(r"\bpatch|\bchanges?\b|\bdiffs?\b|\bprs?\b|pull[\s-]?requests?|contribut|\bfix\b|\bcommits?\b|"
                     r"\bit\b|\bthis\b|\bthem\b|\bchangesets?\b|\bcls?\b|\breview|\bticket|\bissue|\bbug\b|"
                     r"merge requests?|\bcode\b|\bwork\b|\brequests?\b")
# The project's own process: "gitg uses GitLab for code review", "Development for this project
# happens on mailing lists", "we develop and review over at https://gerrit...", "Skia uses only Gerrit".
_PROCESS = re.compile(
    r"\b(?:uses?|using|makes? use of|relies on|rely on)\s+(?:only\s+)?\S+(?:\s+\S+){0,4}?\s+(?:for|as|to)\s+(?:the\s+)?"
    r"(?:\w+\s+){0,2}?(?:code\s+review|review\w*|patch|development|code|changes|change proposal|submitting|"
    r"contributions|code submissions)|"
    r"\b(?:uses?|using)\s+\S+(?:\s+\S+){0,3}?\s+(?:instead of|and not|not)\s+(?:github|(?:github\s+)?(?:pull requests|prs))|"
    r"\b(?:development|review|code review|reviews|contributions|patches)\s+(?:\w+\s+){0,4}?"
    r"(?:happens?|happening|takes? place|is done|are done|are reviewed|go(?:es)? through|continues)\s+(?:\w+\s+)?(?:on|at|in|through|via|over)\b|"
    r"\bwe\s+(?:develop|review|work)\b(?:\s+\w+){0,3}\s+(?:at|on|in|over)\b|"
    r"\b(?:accepts?|takes?)\s+(?:\w+\s+){0,2}(?:via|through|by)\s+\S+(?:\s+\S+)?\s+only\b|"
    r"\bonly\s+(?:patches|changes|contributions|diffs)\s+(?:sent|posted|submitted|made)\s+(?:to|on|via|through)\b|"
    r"\bwe\s+(?:only\s+)?(?:accept|take)\s+(?:patches|contributions|changes|code)\b(?:\s+\w+){0,2}?\s+(?:via|through|on|at|by)\b|"
    r"\b(?:patches|contributions|changes|diffs)\s+are\s+(?:only\s+)?(?:accepted|taken|reviewed|handled|discussed|submitted)\s+"
    r"(?:only\s+)?(?:via|through|on|at|in)\b|"
    r"\bis where\s+(?:the\s+)?(?:development|review|code review|work|contributions|patches)\b|"
    r"\b(?:development|project|repository|repo|code|we)\s+(?:has\s+|have\s+|'ve\s+)?(?:moved|migrated|relocated)\s+"
    r"(?:\w+\s+){0,2}?to\b|"
    r"\b(?:has been|have been|was|were)\s+(?:imported|forwarded|moved|copied|sent)\s+(?:\w+\s+){0,2}?to\b|"
    r"\bforwarded (?:your|this) (?:contribution|change|patch|pr|pull request)\b|"
    r"\buses?\s+only\b|\bonly\s+(?:supports?|accepts?|takes?|allows?)\s+(?:\w+\s+)?(?:patch|patches|changes|contributions)\b|"
    r"\bis maintained in\b|\bpatches are taken through\b|\bcontributions to this repo are possible only\b")

# -- what takes a redirect back, or points elsewhere than this project ---------------------------

# PRs here are welcome: the maintainer says so ("PRs here are fine", "we've decided to take github
# pull requests too", "of course I'll merge this anyway", "feel free to submit more PRs").
_WELCOME = re.compile(
    r"(?:pull[\s-]?requests?|\bprs?\b)\s+(?:here\s+)?(?:are|is)\s+(?:\w+\s+){0,2}?(?:fine|welcome|ok|okay|allowed|"
    r"accepted|encouraged|easier|also accepted)|"
    r"\b(?:feel free to|happy to take|welcome to)\s+(?:\w+\s+){0,2}(?:pull[\s-]?requests?|\bprs?\b)|"
    r"\b(?:decided to|started|also|now|already|finally)\s+(?:\w+\s+){0,2}(?:tak|accept|allow|us)\w*\s+(?:github\s+)?(?:pull[\s-]?requests?|\bprs?\b)|"
    r"\b(?:take|accept)\s+(?:github\s+)?(?:pull[\s-]?requests?|\bprs?\b)\s+too\b|"
    r"\ballowing\s+(?:github\s+)?(?:pull[\s-]?requests?|\bprs?\b)|"
    r"\bmerge (?:this|it) anyway\b|\bcarry on\b|\bany way you (?:like|want)\b|"
    r"\bbut\s+(?:i|we)(?:'ll| will)\s+(?:\w+\s+){0,2}?(?:merge|take|accept|land)\s+(?:this|it)\b|"
    r"\bway to contribute is to (?:make|open|send|submit) an? (?:pull request|pr)\b|"
    r"\bexpects contributions being made through github|\bwe absolutely accept\b|"
    r"\b(?:are|is) accepted via\b.*\bpull requests\b|\bonly one way to send\b|"
    r"\bwe (?:only |also |do )?accept (?:github )?(?:pull[\s-]?requests?|\bprs?\b)")
# This PR was taken in, here or by hand: alone with a mirror statement, not a redirect.
_TAKEN = re.compile(r"(?<!\bbe )(?<!\bbeen )\b(?:merged|applied|committed|integrated|cherry[\s-]?picked)\b|"
                    r"\bi'?ll (?:merge|apply|cherry)|\bwill merge\b")
# A change for another project: vendored code, upstream of this one.
_ELSEWHERE_PROJECT = re.compile(r"\bvendor(?:ed|ing)?\b|\bupstream\b|\boriginate|\bthird[\s-]party\b|"
                                r"\b(?:the|a|an)\s+(?:appropriate|right|correct|proper|other|different|separate)\s+(?:repo|repository)\b")
_NO_NEED = re.compile(r"\bno need to\b|\bdon't need to\b|\bdo not need to\b|\bnot necessary to\b")
_QUESTION_START = re.compile(r"^(?:do|does|did|is|isn't|are|aren't|why|what|how|where|who|which|when|would it|"
                             r"should|shall|was|were|have|has|any)\b")
_LEAD = re.compile(r"^(?:@[\w-]+[,:]?|[*\-•>\s(])+")
_TRAILING_QUESTION = re.compile(r",\s*(?:why|what|how|is|are|do|does|isn't)\b[^,]*\?\s*$")
_REPORT = re.compile(r"^(?!" + _SUGGEST + r"\b)(?:i|i'm|i've|i'd|i'll|we've)\b")
_POLITE = re.compile(r"\b(?:can|could|would|will)\s+you\b|\bare you able\b|\bhopefully\b|\bplease\b")
# Where an obligation sends the change, when that is this repository: "made in the public repo only".
_HERE_DEST = re.compile(r"\s*(?:\w+\s+)?(?:(?:the|this|our)\s+(?:public\s+|github\s+)?(?:repo|repository)\b|github\b|here\b)")
_BUT = re.compile(r"\bbut\b[^.;]*\b(?:only|discussion|not (?:be )?(?:merged|accepted|reviewed)|never (?:be )?merged)\b")
# A maintainer's own habit is the project's process: "I usually review patches through bugzilla".
_HABIT = re.compile(r"^(?:i|we)\s+(?:\w+ly\s+)?(?:only\s+)?(?:review|accept|take|merge|apply|handle|land)\s+"
                    r"(?:patches|changes|contributions|pull requests|prs|code|diffs)\s+(?:only\s+)?(?:through|via|on|in|at|over)\b")
_ASIDE = re.compile(r"\((?:although|though|even though|albeit)\b[^)]*\)")
_INSTEAD_OF = re.compile(r"\b(?:rather than|instead of)\b[^.;:!?]*")
# The PR is still how the change arrives: the tracker only comes first, or names it.
_BESIDE_PRS = re.compile(r"\b(?:before|when|prior to)\s+(?:opening|creating|submitting|sending|filing|making)\s+(?:a|the|your|any)\s+"
                         r"(?:pull request|pr)\b|\btitle of (?:the|your) (?:pull request|pr)\b")
# Another way besides this one: "you can also send your contributions via email".
_ALSO = re.compile(r"\b(?:can|could|may|might)\s+also\b|\balso\s+(?:possible|welcome|accepted|fine)\b")
# A tool that does not let one do what follows, in the same clause: "gerrit doesn't allow you to
# peek a file and create a review request" complains about the tool, it directs no one there.
_NEGATED_CLAUSE = re.compile(r"(?:\bnot|n't|\bnever|\bcannot)\s+(?:let|allow|permit|enable|support)s?\b[^,;:()]*$")
_UNWILLING = re.compile(r"\bnot worth\b|\bhaving to\b|\bthe point of\b|\bno point\b|\bdon't want to\b|\brefuse to\b")
# "Use the mailing lists." as the whole of a sentence is a direction to send the change there.
_BARE_LIST = re.compile(r"(?m)^\W*(?:please\s+)?(?:use|try)\s+(?:the|our|a)\s+(?:\w+\s+)?mailing[\s-]?lists?\W*$")
# Hosts that carry only mailing lists: an address there is a list.
_LIST_HOSTS = ("lists.", "vger.kernel.org", "googlegroups.com", "groups.io", "freelists.org")

# Quoting: email quotes (lines starting ">") and code blocks are someone else's words; a short
# phrase in quotation marks is a mention ("Pull requests are not accepted.", as an example).
_CODE = re.compile(r"```.*?```", re.S)
_QUOTED_LINE = re.compile(r"(?m)^\s*>.*$")
# ...unless the text quotes the project's own documents, as its words: "As the README says:" then "> ..."
_PROJECT_QUOTE = re.compile(r"(?im)^[^>\n]*\b(?:description|readme|contributing|guidelines|documentation|"
                            r"pull request template|repo title|repository title)\b[^\n]*:\s*$(?=\s*^\s*>)")
_QUOTE_MARK = re.compile(r"(?m)^\s*>\s?")
_SHORT_QUOTE = re.compile(r"[\"“”]([^\"“”\n]{0,80})[\"“”]")
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[^a-z\s])|(?<=[.!?])\s*\n|\n\s*\n|\n\s*(?=[-*•]\s|\d+[.)]\s)|(?<=[!?])\s+")
_WORDS = re.compile(r"[\w'’-]+")


def read(text: str | None, strict: bool = False) -> Reading:
    """What one comment or document says about where review happens (pure; explained by its sentence).

    `strict`, for a project's documents and description: only a refusal of PRs or a mirror statement
    decides (a README saying where to file bugs does not); directions still name the venue."""
    if not text:
        return NONE
    low_text = text.lower()
    if not _worth_reading(low_text):
        return NONE
    sentences = _sentences(text)
    welcomes = taken = elsewhere_project = named_prs = False
    found: list[tuple[int, str, tuple[str, str]]] = []  # (rank of why, why, sentence)
    for pair in sentences:
        low = pair[1]
        if _ANAPHORA.search(low) and (named_prs or _PRS_NAMED.search(low_text)):
            found.append((_RANK["refusal"], "refusal", pair))
            continue
        named_prs = named_prs or bool(_PRS_NAMED.search(low))
        if _any(low, _WELCOME_GATE):
            w = _WELCOME.search(low)
            # "You are welcome to open PR, but they are used for discussion only" takes the welcome back
            if w and not _NEG_RX.search(w.group(0)) and not _BUT.search(low, w.end()):
                welcomes = True
                continue
        if _TAKEN.search(low):
            taken = True
        if _ELSEWHERE_PROJECT.search(low):
            elsewhere_project = True
        why = _why(low)
        if why in ("directive", "process") and _DISCUSSION.search(low) and _venue(*pair)[0] == "mailing_list":
            continue  # a list to discuss an idea on first, or announce it: the PR still comes here
        if why:
            found.append((_RANK[why], why, pair))
    if welcomes or not found:
        return Reading(None, welcomes)
    whys = {w for _, w, _ in found}
    says_not_here = bool(whys & {"refusal", "mirror"})
    if strict and not says_not_here:
        return NONE
    if not says_not_here and elsewhere_project and "process" not in whys:
        return NONE  # a change for another project ("send the fix to libcdio, upstream")
    if whys == {"mirror"} and taken:
        return NONE  # "Merged, thanks! Forgot the github repo is just a mirror"
    if _BATCHED.search(low_text) and all(_venue(*pair)[0] in (None, "other") for pair in sentences):
        return NONE  # "we no longer merge PRs of this type directly; we batch them into a cleanup"
    found.sort(key=lambda f: f[0])
    _, why, sentence = found[0]
    venue, link = _venue(*sentence)
    if venue in (None, "other"):  # the sentence names no place, or no tool: the text's others may
        for pair in [f[2] for f in found[1:]] + sentences:
            v, li = _venue(*pair)
            if v not in (None, "other"):
                venue, link = v, li
                break
            if venue is None and v is not None:
                venue, link = v, li
    if link is None:  # the place is named in one sentence and linked in another
        link = next((li for v, li in (_venue(*pair) for pair in sentences) if li and v == venue), None)
    return Reading(Redirect(venue or "other", link, " ".join(sentence[0].split()), why), False)


def read_description(description: str | None, homepage: str | None) -> Redirect | None:
    """Where a repository's own description and homepage say its project is developed, when they say
    it is a mirror or takes no PRs ("Read-only mirror of https://gitlab.gnome.org/GNOME/glib"), or
    its homepage is the project's repository on another forge or review system."""
    desc = description or ""
    said = read(desc, strict=True).redirect
    if said is None and desc and _DESCRIPTION_MIRROR.search(desc.lower()):
        venue, link = _venue(desc, desc.lower())
        said = Redirect(venue or "other", link, " ".join(desc.split()), "mirror")
    forge = _forge(homepage)
    if said is not None:
        if said.link is None and forge is not None:
            return said._replace(venue=forge[0] if said.venue == "other" else said.venue, link=forge[1])
        if said.link is None and homepage and homepage.lower().startswith(("http://", "https://")):
            return said._replace(link=homepage.strip())  # the project's own site says how to contribute
        return said
    if forge is not None:
        return Redirect(forge[0], forge[1], f"homepage: {forge[1]}", "process")
    return None


def _forge(homepage: str | None) -> tuple[str, str] | None:
    """(venue, url) when a homepage is a repository or review system on another forge."""
    if not homepage or not homepage.lower().startswith(("http://", "https://")):
        return None
    url = homepage.strip()
    host, _, path = re.sub(r"^https?://", "", url, flags=_I).partition("/")
    host, parts = host.lower(), [p for p in path.split("/") if p]
    for venue, marks in _HOSTS:
        if venue in ("gerrit", "phabricator") and any(host.startswith(k) for k in marks):
            return venue, url
    forge = next((v for v, hosts in _FORGES if host in hosts or any(host.startswith(h + ".") for h in hosts)), None)
    if forge is not None and len(parts) >= 2:  # a repository, not the forge's front page or a user
        return forge, url
    return None


def recognise(text: str | None) -> Redirect | None:
    """The redirect a text makes, if it makes one."""
    return read(text).redirect


# A short refusal of "them" once PRs were named: "We don't use these."
_ANAPHORA = re.compile(r"^(?:we|i|this project|the project)\s+(?:do not|don't|do n't|never)\s+(?:use|accept|take|look at|review|"
                       r"check|read)\s+(?:these|them|those)\s*[.!]?$")
_PRS_NAMED = re.compile(r"pull[\s-]?requests?|\bprs?\b")

# A description that is a mirror's label: "Read-only mirror of ...", "[MIRROR] ...", "mirrored from".
_DESCRIPTION_MIRROR = re.compile(r"^\W*(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,3}?mirror\b(?!\s+(?:tool|script|manager|list|"
                                 r"selector|service|server|sync))|\bmirror (?:of|for|from)\b|\bmirrored from\b|"
                                 r"\bread[\s-]only (?:mirror|copy|clone)\b")
# Forges whose repositories take changes in their own way (SPEC section 6's venues).
_FORGES = (("gitlab", ("gitlab.com", "gitlab.gnome.org", "gitlab.freedesktop.org", "salsa.debian.org", "invent.kde.org",
                       "gitlab.torproject.org", "gitlab.haskell.org", "gitlab.kitware.com", "framagit.org")),
           ("forgejo", ("codeberg.org", "gitea.com")), ("sourcehut", ("git.sr.ht", "sr.ht")),
           ("savannah", ("savannah.gnu.org", "savannah.nongnu.org", "git.savannah.gnu.org")))

# Words without which a family of patterns cannot match: the patterns run only past them.
_REFUSAL_GATE = ("not", "n't", "never", "nobody", "no one", "no ", "nothing", "cannot", "ignored", "closed", "disabled", "refus",
                 "rejected", "unsupported", "unmonitored", "discarded", "disallowed", "waste", "avoided", "stop",
                 "overwritten", "overwrite", "lost", "instead", "nowhere", "pointless", "useless", "futile")
_MIRROR_GATE = ("mirror", "read-only", "read only", "readonly", "conversion", "export", "synced", "synchronized",
                "copied", "generated", "copy", "clone", "snapshot", " used ", "not the")
_WELCOME_GATE = ("pull", "pr", "merge", "carry on", "any way", "contribut", "accept")

_RANK = {"refusal": 0, "mirror": 1, "directive": 2, "process": 3}


def _sentences(text: str) -> list[tuple[str, str]]:
    """The text's own sentences, each with its lower-cased form; quotes and code set aside."""
    text = _CODE.sub(" ", text)
    if _PROJECT_QUOTE.search(text):  # "From the repository description: > Please don't submit PRs": its own words
        text = _QUOTE_MARK.sub("", text)
    else:
        text = _QUOTED_LINE.sub(" ", text)
    text = _SHORT_QUOTE.sub(lambda m: " " if len(_WORDS.findall(m.group(1))) <= 8 else " " + m.group(1) + " ", text)
    text = text.replace("’", "'").replace("**", "").replace("__", "")
    return [(s, s.lower()) for s in (p.strip() for p in _SPLIT.split(text) if p) if s]


def _any(low: str, keys: tuple[str, ...]) -> bool:
    for k in keys:
        if k in low:
            return True
    return False


def _why(s: str) -> str | None:
    """Which kind of redirect the lower-cased sentence `s` is, if it is one."""
    if "?" in s:
        s = _TRAILING_QUESTION.sub(".", s)
        if s.rstrip().endswith("?") and not _POLITE.search(s):
            return None
    if "(" in s:
        s = _ASIDE.sub(" ", s)  # "(although this repository is a mirror, ...)" concedes, it does not say
    if not _HEDGE.search(s):
        if _any(s, _REFUSAL_GATE) and not _NARROWED.search(s):
            for rx in _REFUSALS:
                for m in rx.finditer(s):
                    if not _ONE_PR.search(m.group(0)) and not (_ONE_PR_BEFORE.search(s, 0, m.start()) and _SINGULAR.match(m.group(0))):
                        return "refusal"
        if _any(s, _MIRROR_GATE):
            for rx in _MIRRORS:
                if rx.search(s):
                    return "mirror"
    led = _LEAD.sub("", s)
    habit = _HABIT.match(led)
    if _NO_NEED.search(s) or (_REPORT.match(led) and not habit):
        return None
    named = _INSTEAD_OF.sub(" ", s)  # "rather than in bugzilla comments": the place turned down is not the place
    venue, _ = _venue(named, named)
    if venue is None:
        return None
    if habit:
        return "process"  # "I usually review patches through bugzilla"
    if _BESIDE_PRS.search(s) or _ALSO.search(s):
        return None  # a tracker beside the PR ("create an issue in JIRA before opening a pull request"), or another way too
    direct = _DIRECT.search(s) or (_ADDRESSED.search(s) and _DIRECT_ADDRESSED.search(s)) or None
    if direct and (_UNWILLING.search(s, 0, direct.start()) or _NEGATED_CLAUSE.search(s, 0, direct.start())):
        # "not worth my time having to subscribe to a mailing list, send one PR"; "gerrit doesn't
        # allow you to peek a file and create a review request": what follows is not asked for
        direct = None
    if direct and (venue not in ("mailing_list", "other") or _CHANGE.search(s[direct.start():])):
        return "directive"
    if venue == "mailing_list" and _BARE_LIST.search(s):
        return "directive"
    obliged = _OBLIGED.search(s)
    if obliged and not _HERE_DEST.match(s, obliged.end()):
        return "directive"
    if _PROCESS.search(s):
        return "process"
    return None


def _venue(s: str, low: str) -> tuple[str | None, str | None]:
    """Where sentence `s` (lower-cased: `low`) names: (venue, link); (None, None) when it names no
    place off GitHub. Addresses are quoted from `s` as written."""
    link = None
    for m in _URL.finditer(s):
        if m.start() and s[m.start() - 1] == "@":
            continue  # the host of an address: the address is the place
        url = m.group(0).rstrip(".,;:!?")
        host = re.sub(r"^https?://", "", url).split("/")[0].lower()
        if "github.com" in host or host.endswith("github.io") or "githubusercontent" in host:
            if "gitgitgadget" in url.lower():
                return "mailing_list", url
            continue
        if "@" in url:
            continue
        link = url
        low_url = url.lower()
        for venue, marks in _HOSTS:
            if any(host.startswith(k) or k in low_url for k in marks):
                if venue == "phabricator" and "reviewboard" in host:
                    break
                return venue, url
        break
    for venue, rx in _VENUE_WORDS:
        if rx.search(low):
            if venue == "mailing_list" or link is None:
                m = _EMAIL.search(s)
                if m and venue in ("mailing_list", "sourcehut"):
                    return venue, m.group(0)
            return venue, link
    m = _EMAIL.search(s)
    if m:
        box, _, host = m.group(0).lower().replace(" at ", "@", 1).partition("@")
        listed = _LIST_MAILBOX.search(box) or host.startswith(_LIST_HOSTS) or host.endswith(_LIST_HOSTS)
        return ("mailing_list" if listed else "other"), m.group(0)
    if link:
        return "other", link
    return None, None
