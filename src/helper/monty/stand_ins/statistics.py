__dsh_len, __dsh_list, __dsh_zip, __dsh_sorted, __dsh_max, __dsh_bin, __dsh_divmod, __dsh_bool, __dsh_float, __dsh_int, __dsh_type, __dsh_TypeError, __dsh_ValueError = len, list, zip, sorted, max, bin, divmod, bool, float, int, type, TypeError, ValueError
import math as __dsh_math
from collections import Counter as __dsh_Counter
__dsh_statistics = __dsh_module()
__dsh_statistics.StatisticsError = __dsh_ValueError
def __dsh_bits(n):
    return 0 if n == 0 else __dsh_len(__dsh_bin(n)) - 2
def __dsh_fraction(n, d):
    g = __dsh_math.gcd(n, d)
    return n // g, d // g
def __dsh_exact(x):
    kind = __dsh_type(x)
    if kind is __dsh_int or kind is __dsh_bool:
        return __dsh_int(x), 1
    if kind is __dsh_float:
        mantissa, exponent = __dsh_math.frexp(x)
        n = __dsh_int(mantissa * 9007199254740992)
        exponent -= 53
        if exponent >= 0:
            return n << exponent, 1
        return __dsh_fraction(n, 1 << -exponent)
    raise __dsh_TypeError(f"can't convert type '{kind.__name__}' to numerator/denominator")
def __dsh_divide(n, d):
    if n == 0:
        return 0.0
    if -9007199254740992 <= n <= 9007199254740992 and d <= 9007199254740992:
        return n / d
    negative = n < 0
    if negative:
        n = -n
    shift = __dsh_bits(d) - __dsh_bits(n) + 55
    if shift >= 0:
        q, r = __dsh_divmod(n << shift, d)
    else:
        q, r = __dsh_divmod(n, d << -shift)
    extra = __dsh_bits(q) - 53
    low = q & ((1 << extra) - 1)
    q = q >> extra
    half = 1 << (extra - 1)
    if low > half or (low == half and (r != 0 or q & 1)):
        q += 1
    value = __dsh_math.ldexp(q, extra - shift)
    return -value if negative else value
def __dsh_convert(n, d, kind):
    n, d = __dsh_fraction(n, d)
    if kind is __dsh_int and d == 1:
        return n
    return __dsh_divide(n, d)
def __dsh_sum(data, squares):
    kind = __dsh_int
    count = 0
    n, d = 0, 1
    sn, sd = 0, 1
    odd = None
    for x in data:
        count += 1
        if __dsh_type(x) is __dsh_float:
            kind = __dsh_float
            if x - x != 0:
                odd = x if odd is None else odd + x
                continue
        a, b = __dsh_exact(x)
        n, d = __dsh_fraction(n * b + a * d, d * b)
        if squares:
            sn, sd = __dsh_fraction(sn * b * b + a * a * sd, sd * b * b)
    return kind, n, d, sn, sd, count, odd
def __dsh_deviations(data, c):
    if c is not None:
        kind, n, d, _, _, count, odd = __dsh_sum([(x - c) * (x - c) for x in data], False)
        return kind, n, d, count, odd
    kind, n, d, sn, sd, count, odd = __dsh_sum(data, True)
    if count == 0 or odd is not None:
        return kind, 0, 1, count, odd
    ssd_n, ssd_d = __dsh_fraction(count * sn * d * d - n * n * sd, sd * d * d * count)
    return kind, ssd_n, ssd_d, count, None
def __dsh_sqrt_rto(n, m):
    a = __dsh_math.isqrt(n // m)
    return a | (1 if a * a * m != n else 0)
def __dsh_sqrt_of_fraction(n, m):
    q = (__dsh_bits(n) - __dsh_bits(m) - 109) // 2
    if q >= 0:
        return __dsh_divide(__dsh_sqrt_rto(n, m << 2 * q) << q, 1)
    return __dsh_divide(__dsh_sqrt_rto(n << -2 * q, m), 1 << -q)
def __dsh_quotient(kind, n, d, odd, divisor):
    if odd is not None:
        return odd / divisor
    return __dsh_convert(n, d * divisor, kind)
def __dsh_root(n, d, odd, divisor):
    if odd is not None:
        raise __dsh_ValueError('inf or nan encountered in data')
    return __dsh_sqrt_of_fraction(n, d * divisor)
def __dsh_mean(data):
    kind, n, d, _, _, count, odd = __dsh_sum(data, False)
    if count < 1:
        raise __dsh_ValueError('mean requires at least one data point')
    return __dsh_quotient(kind, n, d, odd, count)
def __dsh_fmean(data, weights=None):
    data = __dsh_list(data)
    if weights is None:
        if not data:
            raise __dsh_ValueError('fmean requires at least one data point')
        return __dsh_math.fsum(data) / __dsh_len(data)
    weights = __dsh_list(weights)
    if __dsh_len(data) != __dsh_len(weights):
        raise __dsh_ValueError('data and weights must be the same length')
    total = __dsh_math.fsum(weights)
    if not total:
        raise __dsh_ValueError('sum of weights must be non-zero')
    return __dsh_math.fsum([x * w for x, w in __dsh_zip(data, weights)]) / total
def __dsh_median(data):
    data = __dsh_sorted(data)
    n = __dsh_len(data)
    if n == 0:
        raise __dsh_ValueError('no median for empty data')
    if n % 2 == 1:
        return data[n // 2]
    i = n // 2
    return (data[i - 1] + data[i]) / 2
def __dsh_median_low(data):
    data = __dsh_sorted(data)
    n = __dsh_len(data)
    if n == 0:
        raise __dsh_ValueError('no median for empty data')
    return data[n // 2] if n % 2 == 1 else data[n // 2 - 1]
def __dsh_median_high(data):
    data = __dsh_sorted(data)
    if __dsh_len(data) == 0:
        raise __dsh_ValueError('no median for empty data')
    return data[__dsh_len(data) // 2]
def __dsh_mode(data):
    pairs = __dsh_Counter(data).most_common(1)
    if not pairs:
        raise __dsh_ValueError('no mode for empty data')
    return pairs[0][0]
def __dsh_multimode(data):
    counts = __dsh_Counter(data)
    if not counts:
        return []
    most = __dsh_max(counts.values())
    return [value for value, count in counts.items() if count == most]
def __dsh_variance(data, xbar=None):
    kind, n, d, count, odd = __dsh_deviations(data, xbar)
    if count < 2:
        raise __dsh_ValueError('variance requires at least two data points')
    return __dsh_quotient(kind, n, d, odd, count - 1)
def __dsh_pvariance(data, mu=None):
    kind, n, d, count, odd = __dsh_deviations(data, mu)
    if count < 1:
        raise __dsh_ValueError('pvariance requires at least one data point')
    return __dsh_quotient(kind, n, d, odd, count)
def __dsh_stdev(data, xbar=None):
    kind, n, d, count, odd = __dsh_deviations(data, xbar)
    if count < 2:
        raise __dsh_ValueError('stdev requires at least two data points')
    return __dsh_root(n, d, odd, count - 1)
def __dsh_pstdev(data, mu=None):
    kind, n, d, count, odd = __dsh_deviations(data, mu)
    if count < 1:
        raise __dsh_ValueError('pstdev requires at least one data point')
    return __dsh_root(n, d, odd, count)
__dsh_statistics.mean = __dsh_mean
__dsh_statistics.fmean = __dsh_fmean
__dsh_statistics.median = __dsh_median
__dsh_statistics.median_low = __dsh_median_low
__dsh_statistics.median_high = __dsh_median_high
__dsh_statistics.mode = __dsh_mode
__dsh_statistics.multimode = __dsh_multimode
__dsh_statistics.variance = __dsh_variance
__dsh_statistics.pvariance = __dsh_pvariance
__dsh_statistics.stdev = __dsh_stdev
__dsh_statistics.pstdev = __dsh_pstdev
