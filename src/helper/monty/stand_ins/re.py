import re as __dsh_re
__dsh_len = len
def __dsh_re_sub(pattern, repl, string, count=0, flags=0):
    if not __dsh_callable(repl):
        return __dsh_re.sub(pattern, repl, string, count=count, flags=flags)
    return __dsh_re_subn(pattern, repl, string, count, flags)[0]
def __dsh_re_subn(pattern, repl, string, count=0, flags=0):
    function = __dsh_callable(repl)
    if not function:
        # Monty's own `sub`, with the matches it replaced counted (Monty has no `subn`).
        replaced = __dsh_re.sub(pattern, repl, string, count=count, flags=flags)
    pieces = []
    made = 0
    end = 0
    if count >= 0:
        for match in __dsh_re.finditer(pattern, string, flags):
            if made == count and count:
                break
            made += 1
            if not function:
                continue
            if match.start() > end:
                pieces.append(string[end:match.start()])
            piece = repl(match)
            if piece is not None:
                pieces.append(piece)
            end = match.end()
    if not function:
        return (replaced, made)
    if end < __dsh_len(string):
        pieces.append(string[end:])
    return ("".join(pieces), made)
