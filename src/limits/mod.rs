//! The limits: a run's budgets and the state its threads share, the watchdog that applies the
//! budgets and demotes a thread V8 cannot stop, and handing freed memory back to the system.

pub mod answer_wait;
pub mod arena;
pub mod blocking;
pub mod budgets;
pub mod calls_in_flight;
pub mod run;
pub(crate) mod watchdog;
