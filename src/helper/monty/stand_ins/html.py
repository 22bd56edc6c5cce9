__dsh_html = __dsh_module()
def __dsh_escape(text, quote=True):
    text = text.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')
    if quote:
        text = text.replace('"', '&quot;').replace('\'', '&#x27;')
    return text
__dsh_html.escape = __dsh_escape
