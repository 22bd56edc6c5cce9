__dsh_float, __dsh_int, __dsh_format, __dsh_type = float, int, format, type
__dsh_round = round
def round(number, ndigits=None):
    if __dsh_type(number) is __dsh_float and __dsh_type(ndigits) is __dsh_int and 0 <= ndigits <= 400 and number - number == 0:
        return __dsh_float(__dsh_format(number, f".{ndigits}f"))
    if ndigits is None:
        return __dsh_round(number)
    return __dsh_round(number, ndigits)
