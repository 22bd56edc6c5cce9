import datetime as __dsh_datetime
__dsh_type, __dsh_int, __dsh_float, __dsh_bool, __dsh_abs = type, int, float, bool, abs
# Not `__dsh_round`, which the round stand-in keeps for the built-in it replaces.
__dsh_timedelta_round = round
# Each argument's microseconds, in the order CPython adds them up.
__dsh_timedelta_units = (("microseconds", 1), ("milliseconds", 1000), ("seconds", 1000000), ("minutes", 60000000), ("hours", 3600000000), ("days", 86400000000), ("weeks", 604800000000))
def __dsh_timedelta(days=0, seconds=0, microseconds=0, milliseconds=0, minutes=0, hours=0, weeks=0):
    given = {"days": days, "seconds": seconds, "microseconds": microseconds, "milliseconds": milliseconds, "minutes": minutes, "hours": hours, "weeks": weeks}
    kinds = [__dsh_type(value) for value in given.values()]
    # Monty's own takes whole numbers, and says what it takes no other way.
    if __dsh_float not in kinds or any(kind is not __dsh_int and kind is not __dsh_bool and kind is not __dsh_float for kind in kinds):
        return __dsh_datetime.timedelta(**given)
    # A float's whole part counts exactly; its fraction times its unit in floating point, whose
    # whole microseconds count and whose remainders are summed, then rounded half to even.
    total = 0
    leftover = 0.0
    for name, unit in __dsh_timedelta_units:
        value = given[name]
        if __dsh_type(value) is not __dsh_float:
            total += value * unit
            continue
        whole = __dsh_int(value)
        total += whole * unit
        fraction = value - whole
        if fraction == 0.0:
            continue
        scaled = unit * fraction
        total += __dsh_int(scaled)
        leftover += scaled - __dsh_int(scaled)
    if leftover:
        rounded = __dsh_timedelta_round(leftover)
        if __dsh_abs(rounded - leftover) == 0.5:
            odd = total % 2
            rounded = 2 * __dsh_timedelta_round((leftover + odd) * 0.5) - odd
        total += __dsh_int(rounded)
    return __dsh_datetime.timedelta(microseconds=total)
