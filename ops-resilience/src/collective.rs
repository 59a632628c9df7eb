//! The few values the processes of a distributed run agree on, over the runtime's
//! [`Comm`](ops_core::Comm): whether a checkpoint is due by time, the first sequence number, the
//! checkpoint to restart from. Every function here is collective: every process calls it at the
//! same point of the program. Without a communicator (a single process) they answer from this
//! process's value alone.
//!
//! A process's contribution may be an error (it cannot read its directory, say): every process
//! then gets the error, naming the rank, so that all stop together instead of some waiting for
//! the others forever.

use ops_core::Ops;

/// Every process's `mine`, indexed by rank; an error naming the first rank that failed, if any.
pub fn gather_u64(ops: &mut Ops, mine: Result<u64, String>) -> Result<Vec<u64>, String> {
    let Some(comm) = ops.comm() else {
        return mine.map(|v| vec![v]);
    };
    let msg = match &mine {
        Ok(v) => {
            let mut m = vec![0u8];
            m.extend_from_slice(&v.to_le_bytes());
            m
        }
        Err(e) => {
            let mut m = vec![1u8];
            m.extend_from_slice(e.as_bytes());
            m
        }
    };
    let all = comm.all_gather(&msg).map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(all.len());
    for (rank, m) in all.iter().enumerate() {
        match m.split_first() {
            Some((0, v)) if v.len() == 8 => {
                out.push(u64::from_le_bytes(v.try_into().expect("8 bytes")))
            }
            Some((1, text)) => {
                return Err(format!("rank {rank}: {}", String::from_utf8_lossy(text)));
            }
            _ => {
                return Err(format!(
                    "rank {rank} sent {} bytes where a value was expected",
                    m.len()
                ))
            }
        }
    }
    Ok(out)
}

/// True when `mine` is true on any process.
pub fn any(ops: &mut Ops, mine: bool) -> Result<bool, String> {
    Ok(gather_u64(ops, Ok(mine as u64))?.iter().any(|&v| v != 0))
}

#[cfg(test)]
mod tests {
    use ops_backends::prelude::*;

    #[test]
    fn a_single_process_answers_from_its_own_value() {
        let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
        assert_eq!(super::gather_u64(&mut ops, Ok(7)), Ok(vec![7]));
        let e = super::gather_u64(&mut ops, Err("disk".into())).unwrap_err();
        assert_eq!(e, "disk");
    }
}
