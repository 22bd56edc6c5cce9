__dsh_len, __dsh_range, __dsh_NotImplementedError, __dsh_ValueError = len, range, NotImplementedError, ValueError
__dsh_textwrap = __dsh_module()
def __dsh_wrap_chunks(text, width, initial_indent, subsequent_indent, break_long_words, drop_whitespace, max_lines, placeholder):
    if max_lines is not None:
        indent = subsequent_indent if max_lines > 1 else initial_indent
        if __dsh_len(indent) + __dsh_len(placeholder.lstrip()) > width:
            raise __dsh_ValueError("placeholder too large for max width")
    # Words and runs of spaces, in order; `width` counts each line's indent.
    chunks = []
    at = 0
    while at < __dsh_len(text):
        end = at
        spaces = text[at] == ' '
        while end < __dsh_len(text) and (text[end] == ' ') == spaces:
            end += 1
        chunks.append(text[at:end])
        at = end
    chunks.reverse()
    lines = []
    while chunks:
        line = []
        size = 0
        indent = subsequent_indent if lines else initial_indent
        room = width - __dsh_len(indent)
        if drop_whitespace and chunks[-1].strip() == '' and lines:
            chunks.pop()
        while chunks:
            if size + __dsh_len(chunks[-1]) <= room:
                size += __dsh_len(chunks[-1])
                line.append(chunks.pop())
            else:
                break
        if chunks and __dsh_len(chunks[-1]) > room:
            left = room - size if room >= 1 else 1
            if break_long_words:
                line.append(chunks[-1][:left])
                chunks[-1] = chunks[-1][left:]
            elif not line:
                line.append(chunks.pop())
            size = 0
            for piece in line:
                size += __dsh_len(piece)
        if drop_whitespace and line and line[-1].strip() == '':
            size -= __dsh_len(line[-1])
            line.pop()
        if not line:
            continue
        # The last line a max_lines allows ends with the placeholder, unless all the text fits.
        rest_is_space = not chunks or drop_whitespace and __dsh_len(chunks) == 1 and not chunks[0].strip()
        if max_lines is None or __dsh_len(lines) + 1 < max_lines or rest_is_space and size <= room:
            lines.append(indent + ''.join(line))
            continue
        while line:
            if line[-1].strip() and size + __dsh_len(placeholder) <= room:
                line.append(placeholder)
                lines.append(indent + ''.join(line))
                break
            size -= __dsh_len(line[-1])
            line.pop()
        else:
            if lines and __dsh_len(lines[-1].rstrip()) + __dsh_len(placeholder) <= width:
                lines[-1] = lines[-1].rstrip() + placeholder
            else:
                lines.append(indent + placeholder.lstrip())
        break
    return lines
def __dsh_wrap(text, width=70, initial_indent='', subsequent_indent='', expand_tabs=True, replace_whitespace=True, fix_sentence_endings=False, break_long_words=True, drop_whitespace=True, break_on_hyphens=True, tabsize=8, max_lines=None, placeholder=' [...]'):
    if width <= 0:
        raise __dsh_ValueError(f"invalid width {width!r} (must be > 0)")
    if fix_sentence_endings:
        raise __dsh_NotImplementedError("textwrap with fix_sentence_endings is not supported on engine 'monty'")
    if expand_tabs:
        text = text.expandtabs(tabsize)
    if replace_whitespace:
        for space in '\t\n\x0b\x0c\r':
            text = text.replace(space, ' ')
    # CPython breaks words at their hyphens, by rules this stand-in does not take.
    if break_on_hyphens and '-' in text:
        raise __dsh_NotImplementedError("textwrap of text with hyphens is not supported on engine 'monty' (pass break_on_hyphens=False)")
    for space in '\t\n\x0b\x0c\r':
        if space in text:
            raise __dsh_NotImplementedError("textwrap of text with whitespace it keeps is not supported on engine 'monty'")
    return __dsh_wrap_chunks(text, width, initial_indent, subsequent_indent, break_long_words, drop_whitespace, max_lines, placeholder)
def __dsh_fill(text, width=70, **options):
    return '\n'.join(__dsh_wrap(text, width, **options))
def __dsh_shorten(text, width, **options):
    return __dsh_fill(' '.join(text.strip().split()), width, max_lines=1, **options)
def __dsh_dedent(text):
    lines = text.split('\n')
    for at in __dsh_range(__dsh_len(lines)):
        if lines[at] and lines[at].strip(' \t') == '':
            lines[at] = ''
    margin = None
    for line in lines:
        content = line.lstrip(' \t')
        if content == '':
            continue
        indent = line[:__dsh_len(line) - __dsh_len(content)]
        if margin is None:
            margin = indent
        elif indent.startswith(margin):
            pass
        elif margin.startswith(indent):
            margin = indent
        else:
            common = 0
            while common < __dsh_len(margin) and common < __dsh_len(indent) and margin[common] == indent[common]:
                common += 1
            margin = margin[:common]
    if margin:
        lines = [line[__dsh_len(margin):] if line.startswith(margin) else line for line in lines]
    return '\n'.join(lines)
def __dsh_indent(text, prefix, predicate=None):
    out = []
    for line in text.splitlines(True):
        keep = line.strip() if predicate is None else predicate(line)
        out.append(prefix + line if keep else line)
    return ''.join(out)
__dsh_textwrap.wrap = __dsh_wrap
__dsh_textwrap.fill = __dsh_fill
__dsh_textwrap.shorten = __dsh_shorten
__dsh_textwrap.dedent = __dsh_dedent
__dsh_textwrap.indent = __dsh_indent
