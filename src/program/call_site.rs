//! How V8 names a value it cannot destructure or iterate, for the guards that stand between a
//! pattern and its value: a guard's call would otherwise be what V8's message names
//! (`Cannot destructure property 'a' of '__dsh_spread(...)'`), so the guard is told what V8 would
//! have said and says it itself.
//!
//! V8 prints the expression that gave the value as its call printer does (`x.k`, `f(...)`,
//! `(intermediate value)` for what it does not spell out); where it finds no expression (a
//! parameter, an assignment's array pattern) it names the value by its type (`object null`,
//! `number 5`), which the guard does at run time. The messages' forms are
//! src/js/listing_guards.js's `destructureError`.

use swc_ecma_ast::{Callee, Expr, Lit, MemberProp, ObjectPat, ObjectPatProp, Pat, PropName};

/// `Cannot destructure property 'key' of 'text' as it is null.` (`Cannot destructure 'text'…`
/// without a key); the value's type names it when there is no text.
const DESTRUCTURE: u8 = 0;
/// `Cannot read properties of null (reading 'key')`: V8's words when the pattern's first property
/// has a default.
const READING: u8 = 1;
/// `text is not iterable`.
const NOT_ITERABLE: u8 = 2;
/// `text is not a function or its return value is not iterable`.
const CALL_NOT_ITERABLE: u8 = 3;
/// `number 5 is not iterable (cannot read property Symbol(Symbol.iterator))`.
const VALUE_NOT_ITERABLE: u8 = 4;

/// Where a destructured value comes from, which decides the words of V8's message.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Source<'a> {
  /// A declaration's initialiser.
  Declared(&'a Expr),
  /// An assignment's right side.
  Assigned(&'a Expr),
  /// An argument.
  Argument,
}

/// The guard's message argument for `pattern` destructuring a value from `source`, as a JavaScript
/// array literal, or `None` where the guard must let V8 take the value (a pattern with a default).
pub fn destructure_message(pattern: &Pat, source: Source) -> Option<String> {
  match pattern {
    Pat::Object(object) => Some(object_message(object, source)),
    Pat::Array(_) => Some(array_message(source)),
    // A default takes `undefined` (and passes through the guard of its own); V8 names `null` by
    // the default's desugared form.
    Pat::Assign(assign) if source == Source::Argument => match &*assign.left {
      Pat::Object(object) => {
        let message = object_message(object, Source::Argument);
        Some(format!("{},\"{DEFAULTED}\",1]", message.strip_suffix(",null]")?))
      }
      _ => None,
    },
    _ => None,
  }
}

/// The guard's message argument for an array pattern destructuring a value from `source`.
pub fn array_message(source: Source) -> String {
  match source {
    Source::Declared(expr) => iterable_message(expr, false),
    Source::Assigned(_) | Source::Argument => format!("[{VALUE_NOT_ITERABLE}]"),
  }
}

/// The guard's message argument for a for-of over `iterable`.
pub fn for_of_message(iterable: &Expr) -> String {
  iterable_message(iterable, true)
}

/// The guard's message argument for an object pattern destructuring a value from `source`.
pub fn object_message(object: &ObjectPat, source: Source) -> String {
  let text = match source {
    Source::Declared(expr) | Source::Assigned(expr) => quoted(&printed(expr).unwrap_or_else(intermediate)),
    Source::Argument => "null".to_owned(),
  };
  let (form, key) = match object.props.first() {
    Some(ObjectPatProp::KeyValue(property)) => {
      let form = if matches!(&*property.value, Pat::Assign(_)) { READING } else { DESTRUCTURE };
      (form, key_text(&property.key))
    }
    Some(ObjectPatProp::Assign(property)) => {
      let form = if property.value.is_some() { READING } else { DESTRUCTURE };
      (form, Some(property.key.sym.to_string()))
    }
    Some(ObjectPatProp::Rest(_)) | None => (DESTRUCTURE, None),
  };
  let key = key.map_or_else(|| "null".to_owned(), |key| quoted(&key));
  format!("[{form},{key},{text}]")
}

fn iterable_message(expr: &Expr, for_of: bool) -> String {
  let expr = unparenthesised(expr);
  if let Expr::Call(call) = expr
    && let Callee::Expr(callee) = &call.callee
    && (for_of || matches!(&**callee, Expr::Ident(_)))
    && let Some(callee) = printed(callee)
  {
    return format!("[{CALL_NOT_ITERABLE},null,{}]", quoted(&callee));
  }
  // V8 names the value itself where the expression is a read, a call, an operator or a literal.
  let named = for_of
    || !matches!(
      expr,
      Expr::Member(_) | Expr::Call(_) | Expr::Bin(_) | Expr::Seq(_) | Expr::Object(_) | Expr::Array(_) | Expr::New(_)
    );
  match printed(expr) {
    Some(text) if named => format!("[{NOT_ITERABLE},null,{}]", quoted(&text)),
    _ => format!("[{VALUE_NOT_ITERABLE}]"),
  }
}

fn unparenthesised(mut expr: &Expr) -> &Expr {
  while let Expr::Paren(inner) = expr {
    expr = &inner.expr;
  }
  expr
}

/// What V8's printer writes for a conditional expression, as a parameter's default is once V8 has
/// desugared it.
const DEFAULTED: &str = "(intermediate value)(intermediate value)(intermediate value)";

fn intermediate() -> String {
  "(intermediate value)".to_owned()
}

/// `expr` as V8's call printer writes it, for the forms it spells out.
fn printed(expr: &Expr) -> Option<String> {
  match unparenthesised(expr) {
    Expr::Ident(name) => Some(name.sym.to_string()),
    Expr::This(_) => Some("this".to_owned()),
    Expr::Lit(Lit::Null(_)) => Some("null".to_owned()),
    Expr::Lit(Lit::Bool(value)) => Some(value.value.to_string()),
    Expr::Lit(Lit::Num(number)) => number_text(number.value),
    Expr::Lit(Lit::Str(text)) => Some(format!("\"{}\"", text.value.to_string_lossy())),
    Expr::Member(member) => {
      let object = printed(&member.obj)?;
      match &member.prop {
        MemberProp::Ident(name) => Some(format!("{object}.{}", name.sym)),
        MemberProp::Computed(computed) => match &*computed.expr {
          Expr::Lit(Lit::Str(key)) => Some(format!("{object}.{}", key.value.to_string_lossy())),
          Expr::Lit(Lit::Num(number)) => Some(format!("{object}[{}]", number_text(number.value)?)),
          Expr::Ident(name) => Some(format!("{object}[{}]", name.sym)),
          _ => None,
        },
        MemberProp::PrivateName(_) => None,
      }
    }
    Expr::Call(call) => match &call.callee {
      Callee::Expr(callee) => Some(format!("{}(...)", printed(callee)?)),
      _ => None,
    },
    Expr::Await(_) | Expr::OptChain(_) | Expr::New(_) => Some(intermediate()),
    Expr::Cond(_) => Some(DEFAULTED.to_owned()),
    Expr::Object(object) => Some(format!("{{{}}}", intermediate().repeat(object.props.len()))),
    Expr::Array(array) if array.elems.is_empty() => Some("[]".to_owned()),
    Expr::Seq(sequence) => {
      let parts: Option<Vec<String>> = sequence.exprs.iter().map(|part| printed(part)).collect();
      Some(format!("({})", parts?.join(" , ")))
    }
    Expr::Bin(binary) => Some(format!(
      "({} {} {})",
      printed(&binary.left)?,
      binary.op.as_str(),
      printed(&binary.right)?
    )),
    Expr::Unary(unary) => {
      let operator = unary.op.as_str();
      let space = if operator.chars().all(char::is_alphabetic) { " " } else { "" };
      Some(format!("({operator}{space}{})", printed(&unary.arg)?))
    }
    _ => None,
  }
}

/// An integer as JavaScript writes it; other numbers are not spelled out here.
fn number_text(value: f64) -> Option<String> {
  (value.fract() == 0.0 && value.abs() < 1e21).then(|| format!("{value:.0}"))
}

fn key_text(key: &PropName) -> Option<String> {
  match key {
    PropName::Ident(name) => Some(name.sym.to_string()),
    PropName::Str(text) => Some(text.value.to_string_lossy().into_owned()),
    PropName::Num(number) => number_text(number.value),
    PropName::Computed(_) | PropName::BigInt(_) => None,
  }
}

/// `text` as a JavaScript string literal.
fn quoted(text: &str) -> String {
  serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

#[cfg(test)]
mod tests {
  use swc_common::sync::Lrc;
  use swc_common::{FileName, SourceMap};
  use swc_ecma_ast::{Decl, EsVersion, Stmt};
  use swc_ecma_parser::{Syntax, parse_file_as_script};

  use super::{Source, destructure_message, for_of_message};

  /// The message argument for the one declaration `code` holds, and for a for-of over its
  /// initialiser.
  fn messages(code: &str) -> (String, String) {
    let map: Lrc<SourceMap> = Default::default();
    let file = map.new_source_file(Lrc::new(FileName::Anon), code.to_owned());
    let script = parse_file_as_script(&file, Syntax::default(), EsVersion::latest(), None, &mut Vec::new()).unwrap();
    let Stmt::Decl(Decl::Var(declaration)) = &script.body[0] else { panic!("not a declaration") };
    let declarator = &declaration.decls[0];
    let init = declarator.init.as_deref().unwrap();
    (
      destructure_message(&declarator.name, Source::Declared(init)).unwrap(),
      for_of_message(init),
    )
  }

  #[test]
  fn names_the_initialiser_as_v8_prints_it() {
    assert_eq!(messages("const { a, ...r } = null").0, r#"[0,"a","null"]"#);
    assert_eq!(messages("const { a, ...r } = x['k'].y").0, r#"[0,"a","x.k.y"]"#);
    assert_eq!(messages("const { 'a-b': a, ...r } = x[0]").0, r#"[0,"a-b","x[0]"]"#);
    assert_eq!(messages("const { a, ...r } = o.f(1, 2)").0, r#"[0,"a","o.f(...)"]"#);
    assert_eq!(messages("const { a, ...r } = (x?.y)").0, r#"[0,"a","(intermediate value)"]"#);
    assert_eq!(messages("const { [k]: a, ...r } = n").0, r#"[0,null,"n"]"#);
    assert_eq!(messages("const { ...r } = n").0, r#"[0,null,"n"]"#);
    assert_eq!(messages("const { a = 1, ...r } = n").0, r#"[1,"a","n"]"#);
    assert_eq!(messages("const { a: b = 1, ...r } = n").0, r#"[1,"a","n"]"#);
    // Operators fully parenthesised, an object literal by its properties, as V8's printer writes them.
    assert_eq!(messages("const { a, ...r } = typeof x === 1 || null").0, r#"[0,"a","(((typeof x) === 1) || null)"]"#);
    assert_eq!(messages("const { a, ...r } = (x, -y)").0, r#"[0,"a","(x , (-y))"]"#);
    assert_eq!(messages("const { a, ...r } = ({ y: null, z }).y").0, r#"[0,"a","{(intermediate value)(intermediate value)}.y"]"#);
    assert_eq!(messages("const { a, ...r } = new Object().y").0, r#"[0,"a","(intermediate value).y"]"#);
    assert_eq!(messages("const { a, ...r } = [][0]").0, r#"[0,"a","[][0]"]"#);
  }

  #[test]
  fn names_an_iterable_as_v8_prints_it() {
    assert_eq!(messages("const [{ ...r }] = n"), (r#"[2,null,"n"]"#.to_owned(), r#"[2,null,"n"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = f()"), (r#"[3,null,"f"]"#.to_owned(), r#"[3,null,"f"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = x.k"), ("[4]".to_owned(), r#"[2,null,"x.k"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = x.y.f()"), ("[4]".to_owned(), r#"[3,null,"x.y.f"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = a || b"), ("[4]".to_owned(), r#"[2,null,"(a || b)"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = -a"), (r#"[2,null,"(-a)"]"#.to_owned(), r#"[2,null,"(-a)"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = a + `b`"), ("[4]".to_owned(), "[4]".to_owned()));
  }
}
