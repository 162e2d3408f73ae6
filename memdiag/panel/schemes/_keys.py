"""Group labels as keys, and the time an id pattern may take (SPEC §6).

Labels match ignoring case, spaces and punctuation (``Multi_Hop`` = ``multi-hop``) wherever a
scheme meets a label: its own fields, the data's groups and the built-in names.
"""

from __future__ import annotations

import re

#: Time allowed for matching ``exclude_ids`` against all the query ids of a data set, in seconds
#: (ordinary patterns take milliseconds on tens of thousands of ids).
PATTERN_SECONDS = 2.0


def match_key(label: object) -> str:
    """Matching key of a group label: case, spaces and punctuation ignored ('Multi_Hop' -> 'multihop').

    >>> match_key("Multi_Hop") == match_key("multi-hop")
    True
    """
    return re.sub(r"[^0-9a-z]+", "", str(label).casefold())
