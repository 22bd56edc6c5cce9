__dsh_string = __dsh_module()
__dsh_string.ascii_lowercase = 'abcdefghijklmnopqrstuvwxyz'
__dsh_string.ascii_uppercase = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
__dsh_string.ascii_letters = __dsh_string.ascii_lowercase + __dsh_string.ascii_uppercase
__dsh_string.digits = '0123456789'
__dsh_string.hexdigits = '0123456789abcdefABCDEF'
__dsh_string.octdigits = '01234567'
__dsh_string.punctuation = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'
__dsh_string.whitespace = ' \t\n\r\x0b\x0c'
__dsh_string.printable = __dsh_string.digits + __dsh_string.ascii_letters + __dsh_string.punctuation + __dsh_string.whitespace
def __dsh_capwords(text, sep=None):
    return (sep or ' ').join([word.capitalize() for word in text.split(sep)])
__dsh_string.capwords = __dsh_capwords
