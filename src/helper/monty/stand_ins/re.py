import re as __dsh_re
__dsh_type, __dsh_str, __dsh_bytes, __dsh_len = type, str, bytes, len
def __dsh_re_sub(pattern, repl, string, count=0, flags=0):
    return __dsh_re_subn(pattern, repl, string, count, flags)[0]
def __dsh_re_subn(pattern, repl, string, count=0, flags=0):
    if __dsh_type(repl) is __dsh_str or __dsh_type(repl) is __dsh_bytes:
        made = 0
        if count >= 0:
            for _ in __dsh_re.finditer(pattern, string, flags):
                if made == count and count:
                    break
                made += 1
        return (__dsh_re.sub(pattern, repl, string, count=count, flags=flags), made)
    pieces = []
    made = 0
    end = 0
    if count >= 0:
        for match in __dsh_re.finditer(pattern, string, flags):
            if made == count and count:
                break
            if match.start() > end:
                pieces.append(string[end:match.start()])
            piece = repl(match)
            if piece is not None:
                pieces.append(piece)
            end = match.end()
            made += 1
    if end < __dsh_len(string):
        pieces.append(string[end:])
    return ("".join(pieces), made)
